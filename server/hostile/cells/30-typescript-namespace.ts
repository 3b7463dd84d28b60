// attack: a TypeScript namespace with code in it (sucrase drops namespaces, so the cell failed later with "N is not defined")
// finding: hostile-cell probe, TypeScript module syntax (namespace, module M {}, export =)
// expect: {"status":"failed","code":"invalid_input","error":"`namespace N` at line 4:1 is not supported in a cell"}
namespace N {
  export const y = 1;
}
return N.y;
