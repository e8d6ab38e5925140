; inherits: typescript
; TSX uses the TypeScript patterns unchanged.
