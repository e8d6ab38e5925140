; Go imports: one @import per import spec, @module the import path, @name the local name
; when one is given (an alias, "_" or ".").

(import_spec
  path: (interpreted_string_literal (interpreted_string_literal_content) @module)) @import

(import_spec
  name: (_) @name
  path: (interpreted_string_literal (interpreted_string_literal_content) @module)) @import
