"""Prints IR nested `n` deep: `regions` (scf.execute_region in one another)
or `type` (a tensor of tensors, as a function argument)."""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
if kind == "regions":
    lines = ["func.func @f() {"]
    lines += ["%%r%d = scf.execute_region -> i32 {" % i for i in range(n)]
    lines += ["%c = arith.constant 0 : i32", "scf.yield %c : i32"]
    for i in range(n - 1):
        lines += ["}", "scf.yield %%r%d : i32" % (n - 1 - i)]
    lines += ["}", "return", "}"]
    print("\n".join(lines))
else:
    print("func.func @f(%x: " + "tensor<" * n + "f32" + ">" * n + ") { return }")
