; TypeScript imports (javascript-imports.scm plus `import x = require("y")`). tsx inherits this.

(import_statement
  source: (string (string_fragment) @module)) @import

(import_statement
  (import_clause (identifier) @name)
  source: (string (string_fragment) @module)) @import

(import_statement
  (import_clause
    (named_imports
      (import_specifier name: (_) @name)))
  source: (string (string_fragment) @module)) @import

(import_statement
  (import_require_clause
    (identifier) @name
    source: (string (string_fragment) @module))) @import

(export_statement
  source: (string (string_fragment) @module)) @import

(export_statement
  (export_clause
    (export_specifier name: (_) @name))
  source: (string (string_fragment) @module)) @import

(call_expression
  function: (identifier) @_fn
  arguments: (arguments . (string (string_fragment) @module))
  (#eq? @_fn "require")) @import

(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @module))) @import
