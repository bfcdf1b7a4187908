#pragma once
// Starting another program from a forked child, and running one to collect its
// output. Every child capmap starts takes the same steps between fork and exec,
// so a worker, a git call and a hash check behave alike.
#include <string>
#include <vector>

namespace capmap {

// argv as execvp takes it: pointers into `argv`, ended by a null pointer.
std::vector<char*> exec_argv(const std::vector<std::string>& argv);

// In a freshly forked child: undo what capmap changed for itself (blocked and
// ignored signals), so the program starts as from a shell.
void reset_signals_in_child();

// In a forked child: runs argv[0] (looked up on PATH), or says why not on
// stderr and exits 127.
[[noreturn]] void exec_or_die(const std::vector<char*>& argv);

// Runs argv to completion and returns its stdout; stderr passes through unless
// dropped. `exit_code` receives the exit status (128 + signal when killed).
std::string run_and_capture(const std::vector<std::string>& argv, int& exit_code,
                            bool drop_stderr = false);

}  // namespace capmap
