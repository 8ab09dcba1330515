/* net_int.h - internals shared by the files of sim/net. */
#ifndef PODSIM_NET_INT_H
#define PODSIM_NET_INT_H

#include "net.h"

/* The aws-ofi-nccl p5/p5e all-reduce regions (efa.c) that contain the point
 * (bytes, ranks) of a group of 8 ranks per node, in the plugin's order:
 * their algorithms and protocols into a[], p[] (at most max); returns the
 * count. */
int net_efa_regions(double bytes, double ranks, net_algo *a, net_proto *p, int max);

#endif
