/* report_int.h - internals shared by the report module's files. */
#ifndef PODSIM_REPORT_INT_H
#define PODSIM_REPORT_INT_H

#include "report.h"

#endif
