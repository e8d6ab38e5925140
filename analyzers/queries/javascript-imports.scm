; JavaScript imports: ES modules, re-exports, require() and dynamic import().
; @module is the specifier without quotes; @name the imported names as written
; (default imports: the local name).

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
