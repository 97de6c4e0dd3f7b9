// Everything is in the header (static inline); this file gives the target its one translation unit.
#include "CTandemAtomics.h"
