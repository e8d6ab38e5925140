; Python imports. @import is the statement, @module the module as written (relative
; imports keep their dots: ".", "..pkg.mod"), @name each imported name.

(import_statement
  name: (dotted_name) @module) @import

(import_statement
  name: (aliased_import
    name: (dotted_name) @module)) @import

(import_from_statement
  module_name: (_) @module
  name: (dotted_name) @name) @import

(import_from_statement
  module_name: (_) @module
  name: (aliased_import
    name: (dotted_name) @name)) @import

(import_from_statement
  module_name: (_) @module
  (wildcard_import) @name) @import
