; inherits: typescript, _jsx
; TSX: TypeScript plus JSX component calls.
