; TypeScript definitions (see python-tags.scm for the capture convention). tsx inherits this.

(function_declaration
  name: (identifier) @name.definition.function) @definition.function

(generator_function_declaration
  name: (identifier) @name.definition.function) @definition.function

(function_signature
  name: (identifier) @name.definition.function) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name.definition.function
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name.definition.function
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(class_declaration
  name: (type_identifier) @name.definition.class) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name.definition.class) @definition.class

(interface_declaration
  name: (type_identifier) @name.definition.interface) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name.definition.type) @definition.type

(enum_declaration
  name: (identifier) @name.definition.enum) @definition.enum

(internal_module
  name: [(identifier) (nested_identifier)] @name.definition.module) @definition.module

(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name.definition.method) @definition.method)

(class_body
  (abstract_method_signature
    name: (property_identifier) @name.definition.method) @definition.method)

(class_body
  (public_field_definition
    name: [(property_identifier) (private_property_identifier)] @name.definition.method
    value: [(arrow_function) (function_expression)]) @definition.method)

(interface_body
  (method_signature
    name: (property_identifier) @name.definition.method) @definition.method)

; Decorators: on an exported class they belong to the export statement; on a member they
; are siblings in the class body.
(export_statement
  decorator: (decorator) @decorator
  declaration: (_) @decorates)

(class_body
  (decorator)+ @decorator
  .
  [(method_definition) (public_field_definition) (abstract_method_signature)] @decorates)
