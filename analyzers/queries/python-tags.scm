; Python definitions.
; Capture convention (aider's): @definition.<kind> is the node whose lines make the symbol's
; span, @name.definition.<kind> its name. When one name is captured by several patterns the
; widest span wins, so a decorated_definition (decorators included) beats the bare def.

(class_definition
  name: (identifier) @name.definition.class) @definition.class

(function_definition
  name: (identifier) @name.definition.function) @definition.function

(decorated_definition
  definition: (class_definition
    name: (identifier) @name.definition.class)) @definition.class

(decorated_definition
  definition: (function_definition
    name: (identifier) @name.definition.function)) @definition.function
