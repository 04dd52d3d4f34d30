#include <zlib.h>

#include "zip/zip.h"

const char *ts_zip_zlib_version(void) { return zlibVersion(); }
