/* net_int.h - internals shared by the files of sim/net. */
#ifndef PODSIM_NET_INT_H
#define PODSIM_NET_INT_H

#include "net.h"

/* The aws-ofi-nccl region tuner's tables (efa_tables.c; efa.c tests the
 * points). A vertex is (bytes, ranks) as the plugin writes it; a region's
 * algorithm EFA_PAT is NCCL's PAT (coll.c "PAT"). */
#define EFA_PAT         NET_ALGO_PAT
#define EFA_MAX_VERTICES 20 /* TUNER_MAX_NUM_VERTICES, A include/tuner/nccl_ofi_tuner_region.h */

typedef struct efa_pt {
	double bytes, ranks;
} efa_pt;

typedef struct efa_region {
	net_algo algo; /* or EFA_PAT */
	net_proto proto;
	int n;
	efa_pt v[EFA_MAX_VERTICES];
} efa_region;

/* One list of regions: a platform's, for one collective and ranks per node. */
typedef struct efa_table {
	net_ec2 ec2; /* NET_EC2_P5 stands for p5 and p5e */
	int per_node;
	net_coll coll;
	const efa_region *r;
	int n;
} efa_table;

/* Every table, in efa_tables.c; *n gets the count. */
const efa_table *net_efa_tables(int *n);

/* The regions of platform ec2's table for collective `coll` and `per_node`
 * ranks per node that contain the point (bytes, ranks), in the plugin's
 * order: their algorithms (EFA_PAT included) and protocols into a[], p[]
 * (at most max); returns the count, 0 where no table exists. */
int net_efa_regions(net_ec2 ec2, net_coll coll, int per_node, double bytes, double ranks,
		    net_algo *a, net_proto *p, int max);

/* NCCL's tuning latencies (tune.c's copy of its table, N tuning.cc:143-175),
 * in seconds, Simple protocol: NVLS's and NVLSTree's inside a node (base
 * latency + NVLink hardware latency, 0 + 25 us) and NVLSTree's network
 * step (20.9 us); divided by 1e6, so each is the double its decimal literal
 * in seconds is (the fit's finite differences notice an ulp). */
double net_tune_nvls_intra_s(void);
double net_tune_nvlstree_net_s(void);

#endif
