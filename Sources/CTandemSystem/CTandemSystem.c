// The header carries everything; this file exists so that SwiftPM builds the module.
#include "CTandemSystem.h"
