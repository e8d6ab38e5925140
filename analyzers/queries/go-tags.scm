; Go definitions (see python-tags.scm for the capture convention). @scope qualifies a
; method's name with its receiver type: func (s *Server) Start() -> Server.Start.
; More specific patterns come first: on a tie the earlier pattern wins.

(function_declaration
  name: (identifier) @name.definition.function) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @scope
        (pointer_type (type_identifier) @scope)
        (generic_type type: (type_identifier) @scope)
        (pointer_type (generic_type type: (type_identifier) @scope))
      ]))
  name: (field_identifier) @name.definition.method) @definition.method

(type_spec
  name: (type_identifier) @name.definition.struct
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name.definition.interface
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name.definition.type) @definition.type

(type_alias
  name: (type_identifier) @name.definition.type) @definition.type

(method_elem
  name: (field_identifier) @name.definition.method) @definition.method
