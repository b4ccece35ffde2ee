; inherits: _ecmascript
; TypeScript: interfaces, type aliases, enums, namespaces, abstract classes, function-valued fields.

(abstract_class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
(internal_module name: (_) @name) @scope
(public_field_definition
  name: (property_identifier) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method
; declarations without a body: overload signatures (joined to the implementation's chunk when adjacent),
; `declare function`, interface and abstract members
(function_signature name: (_) @name) @definition.function
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
