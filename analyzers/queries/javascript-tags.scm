; JavaScript definitions (see python-tags.scm for the capture convention).
; @decorator/@decorates: decorator nodes that sit before the definition as siblings extend
; its span upwards.

(function_declaration
  name: (identifier) @name.definition.function) @definition.function

(generator_function_declaration
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
  name: (identifier) @name.definition.class) @definition.class

(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name.definition.method) @definition.method)

(class_body
  (field_definition
    property: [(property_identifier) (private_property_identifier)] @name.definition.method
    value: [(arrow_function) (function_expression)]) @definition.method)

(export_statement
  decorator: (decorator) @decorator
  declaration: (_) @decorates)
