// attack: a loop that never yields
// finding: sandbox walls (regression guard): ends at the budget
// expect: {"status":"failed","code":"timeout"}
for (;;) {}
