#include <solv/solvversion.h>

#include "resolver/resolver.h"

const char *ts_resolver_libsolv_version(void) { return solv_version; }
