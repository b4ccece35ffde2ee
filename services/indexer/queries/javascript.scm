; inherits: _ecmascript, _jsx
; JavaScript (and JSX): class fields holding functions are methods.

(field_definition
  property: (property_identifier) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method
