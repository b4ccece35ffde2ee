; JSX (javascript.scm, tsx.scm): rendering <Component/> counts as a call of Component.

(jsx_opening_element
  name: [
    (identifier) @call.name
    (member_expression object: (_) @call.receiver property: (property_identifier) @call.name)
  ]
  (#match? @call.name "^[A-Z]")) @call
(jsx_self_closing_element
  name: [
    (identifier) @call.name
    (member_expression object: (_) @call.receiver property: (property_identifier) @call.name)
  ]
  (#match? @call.name "^[A-Z]")) @call
