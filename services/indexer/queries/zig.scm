; Zig: functions, struct/union (class) and enum containers bound to a const, test blocks.

(Decl (FnProto function: (IDENTIFIER) @name) (Block) @body) @definition.function
((TestDecl (STRINGLITERALSINGLE) @name (Block) @body) @definition.function
  (#set! definition.test "true"))
(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType ["struct" "union" "opaque"]))))))
  @definition.class
(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "enum")))))) @definition.enum

(SuffixExpr variable_type_function: (IDENTIFIER) @call.name . (FnCallArguments)) @call
(SuffixExpr
  variable_type_function: (IDENTIFIER) @call.receiver
  .
  (FieldOrFnCall function_call: (IDENTIFIER) @call.name)) @call
(FieldOrFnCall function_call: (IDENTIFIER) @call.name) @call

(SuffixExpr
  (BUILTINIDENTIFIER) @_builtin
  (FnCallArguments (ErrorUnionExpr (SuffixExpr (STRINGLITERALSINGLE) @import.target)))
  (#eq? @_builtin "@import")) @import

(line_comment) @comment
(doc_comment) @comment
