; Rust definitions (see python-tags.scm for the capture convention). Items nested in an
; impl, trait or inline mod are qualified with "::" (impl Point { fn new } -> Point::new).
; An impl is named by its type, without generics (impl<T> Stack<T> -> Stack).

(function_item
  name: (identifier) @name.definition.function) @definition.function

(function_signature_item
  name: (identifier) @name.definition.function) @definition.function

(struct_item
  name: (type_identifier) @name.definition.struct) @definition.struct

(union_item
  name: (type_identifier) @name.definition.struct) @definition.struct

(enum_item
  name: (type_identifier) @name.definition.enum) @definition.enum

(trait_item
  name: (type_identifier) @name.definition.trait) @definition.trait

(type_item
  name: (type_identifier) @name.definition.type) @definition.type

(mod_item
  name: (identifier) @name.definition.module
  body: (declaration_list)) @definition.module

(macro_definition
  name: (identifier) @name.definition.macro) @definition.macro

(impl_item
  type: [
    (type_identifier) @name.definition.impl
    (generic_type type: (type_identifier) @name.definition.impl)
    (scoped_type_identifier name: (type_identifier) @name.definition.impl)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name.definition.impl))
  ]) @definition.impl

; Attributes (#[derive(..)], #[test]) directly before an item belong to its span.
((attribute_item)+ @decorator
  .
  [(function_item) (struct_item) (enum_item) (union_item) (trait_item) (impl_item) (mod_item)
   (type_item) (function_signature_item)] @decorates)
