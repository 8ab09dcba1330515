/* hw_int.h - internals shared by the files of sim/hw. */
#ifndef PODSIM_HW_INT_H
#define PODSIM_HW_INT_H

#include "hw.h"

/* The dtype whose tensor path actually runs a request for t (kernel.c). */
hw_dtype hw_path_dtype(const hw_gpu *g, hw_dtype t);
/* Seconds to move `bytes` at the achievable HBM bandwidth, no overhead. */
double hw_stream_time(const hw_gpu *g, double bytes);
/* Achievable tensor rate of dtype t's path: peak * efficiency, FLOP/s. */
double hw_rate(const hw_gpu *g, hw_dtype t);
/* The sustained clock fraction an SM-bound kernel in dtype t runs at (hw.h
 * tensor_sustain: each kernel its own dtype's; 0 = none, the burst clock):
 * fp8's sustain_cap in an fp8 step, sustain_cap16 for the rest. */
double hw_clock_cap(const hw_gpu *g, hw_dtype t);

#endif
