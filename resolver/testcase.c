/* --debug-solver's libsolv testcase: see internal.h. */
#include <dlfcn.h>

#include <solv/solver.h>
#include <solv/testcase.h>

#include "core/error.h"
#include "resolver/internal.h"

/* --debug-solver: the solve as a libsolv testcase (testsolv replays it).
 * testcase_write lives in libsolvext, which pulls in librpm, Lua, SQLite
 * and eight more libraries: linked, their loading and relocation was 7%
 * of every warm 25 ms run, so it is opened only when asked for. */
enum ts_code ts_rs_write_testcase(Solver *solv, const char *dir, struct ts_error *err) {
  void *ext = dlopen("libsolvext.so.1", RTLD_NOW | RTLD_LOCAL);
  int (*write)(Solver *, const char *, int, const char *, const char *) =
      NULL;
  if (ext)
    *(void **)&write = dlsym(ext, "testcase_write");
  if (!write) {
    enum ts_code c = ts_error_set(err, TS_E_UNSUPPORTED,
                                  "--debug-solver needs libsolvext.so.1 "
                                  "(libsolv's tools library): %s",
                                  dlerror());
    if (ext)
      dlclose(ext);
    return c;
  }
  int ok = write(solv, dir,
                 TESTCASE_RESULT_TRANSACTION | TESTCASE_RESULT_PROBLEMS, NULL,
                 NULL);
  dlclose(ext);
  return ok ? TS_OK
            : ts_error_set(err, TS_E_IO,
                           "--debug-solver: cannot write a testcase to %s",
                           dir);
}
