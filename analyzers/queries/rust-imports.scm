; Rust imports. @import.mod: `mod foo;` (a module in another file); @import.use: a use
; declaration, @module its path and @name the used items (`use crate::a::{b, c}` -> module
; "crate::a", names b, c); @import.extern: `extern crate x`.

(mod_item
  name: (identifier) @module
  !body) @import.mod

(use_declaration
  argument: (scoped_identifier
    path: (_) @module
    name: (identifier) @name)) @import.use

(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier
      path: (_) @module
      name: (identifier) @name))) @import.use

(use_declaration
  argument: [(identifier) (crate) (self) (super)] @module) @import.use

(use_declaration
  argument: (use_as_clause
    path: (identifier) @module)) @import.use

(use_declaration
  argument: (scoped_use_list
    path: (_) @module
    list: (use_list (_) @name))) @import.use

(use_declaration
  argument: (use_wildcard
    (_) @module)) @import.use

(extern_crate_declaration
  name: (identifier) @module) @import.extern
