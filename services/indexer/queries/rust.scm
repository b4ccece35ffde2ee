; Rust: functions (methods inside impl/trait), structs, enums, traits, type aliases; `mod x;` and `use`.

; a test: `#[test]`, `#[tokio::test]`, `#[rstest]`, `#[test_case(…)]`, `#[bench]`… above it, maybe beside other
; attributes and comments (first: one node, one name)
((attribute_item (attribute [(identifier) (scoped_identifier)] @_test))
  .
  [(attribute_item) (line_comment) (block_comment)]*
  .
  (function_item name: (identifier) @name) @definition.function
  (#match? @_test "(^|::)(test|rstest|test_case|bench|quickcheck|wasm_bindgen_test)$")
  (#set! definition.test "true"))
(function_item name: (identifier) @name) @definition.function
; a trait's required method: a declaration without a body
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.class
(union_item name: (type_identifier) @name) @definition.class
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.interface
(type_item name: (type_identifier) @name) @definition.type
(macro_definition name: (identifier) @name) @definition.function

(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @scope.type
(mod_item name: (identifier) @name body: (declaration_list)) @scope

(call_expression
  function: [
    (identifier) @call.name
    (scoped_identifier path: (_) @call.receiver name: (identifier) @call.name)
    (field_expression value: (_) @call.receiver field: (field_identifier) @call.name)
    (generic_function function: (identifier) @call.name)
    (generic_function function: (scoped_identifier path: (_) @call.receiver name: (identifier) @call.name))
    (generic_function function: (field_expression value: (_) @call.receiver field: (field_identifier) @call.name))
  ]) @call

; `mod util;` declares the child module file: resolved like `use self::util`.
((mod_item name: (identifier) @import.target !body) @import
  (#set! import.prefix "self::"))
(use_declaration argument: (scoped_identifier path: (_) @import.target name: (identifier) @import.name)) @import
(use_declaration argument: (identifier) @import.target) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.target
    list: (use_list [
      (identifier) @import.name
      (self) @import.name
      (scoped_identifier name: (identifier) @import.name)
      (use_as_clause path: (identifier) @import.name)
    ]))) @import
(use_declaration
  argument: (use_as_clause path: (scoped_identifier path: (_) @import.target name: (identifier) @import.name))) @import
(use_declaration argument: (use_as_clause path: (identifier) @import.target)) @import
(use_declaration argument: (use_wildcard (_) @import.target "*" @import.name)) @import

; attributes left over when not above a definition (e.g. #[cfg(test)] on a mod block)
(attribute_item) @skip
(inner_attribute_item) @skip
(line_comment) @comment
(block_comment) @comment
