#ifndef TANDEM_CSQLITE_SHIM_H
#define TANDEM_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
