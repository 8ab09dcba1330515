/* efa.c - the aws-ofi-nccl tuner's regions for all-reduce on p5/p5e with 8
 * ranks per node (net_efa_region in coll.c applies them).
 *
 * The plugin's default tuner on p5/p5e (type REGION, A = aws/aws-ofi-nccl
 * 2daf7d30, include/nccl_ofi_param.h:268) describes, per collective and
 * ranks-per-node layout, polygons in the plane (log2 bytes, log2 ranks).
 * For a call it takes the first polygon in its list that contains the
 * point, boundary included, whose algorithm and protocol NCCL lists as
 * applicable, and forces that pair (A src/tuner/nccl_ofi_regions.cpp:
 * 2096-2128); with no such polygon, or on 2 nodes or fewer (:2096-2099),
 * NCCL's own tuner decides. For 8 ranks per node the p5/p5e table has
 * all-reduce regions only (:675-767); all-gather and reduce-scatter go to
 * NCCL's tuner (the ring on EFA).
 *
 * The vertices below are that table's, in bytes and ranks. Where the plugin
 * extends an edge to its limits (100 GiB, 2^20 ranks; extend_region,
 * :254) the extended end is written out: the tree's vertical edge at 384 MiB
 * reaches 2^20 ranks, and the line through (7.5 GiB, 160) and (9 GiB, 192)
 * meets 100 GiB at 2133.3 ranks. The point test is the even-odd rule on a
 * horizontal ray, after a test for the point lying on an edge (the
 * plugin counts the boundary as inside). Byte count 0 maps to 1e-6 as in
 * the plugin's log2 transform.
 *
 * Worked picks (derived; /work/notes/nccl-efa.md section 3.4): 256 MiB on
 * 3-8 nodes Ring/LL128, on 16-64 nodes Tree/LL128; 1 GiB Ring/LL128 up to
 * 16 nodes, NVLSTree/Simple on 32-64.
 */
#include "net_int.h"

#include <math.h>

typedef struct pt {
	double bytes, ranks;
} pt;

typedef struct region {
	net_algo algo;
	net_proto proto;
	int n;
	pt v[17];
} region;

#define GIB       1073741824.0
#define TOP_BYTES (100 * GIB)        /* TUNER_MAX_SIZE */
#define TOP_RANKS 1048576.0          /* TUNER_MAX_RANKS */
#define EXT_RANKS (2133.0 + 1.0 / 3) /* (7.5 GiB, 160)-(9 GiB, 192) at 100 GiB */

static const region p5_8[] = {
        {NET_ALGO_TREE,
         NET_PROTO_LL128,
         12,
         {{0, 16},
          {31457280, 16},
          {37748736, 32},
          {117440512, 64},
          {301989888, 128},
          {301989888, 256},
          {335544320, 512},
          {536870912, 1024},
          {402653184, 2048},
          {402653184, 4096},
          {402653184, TOP_RANKS},
          {0, TOP_RANKS}}},
        {NET_ALGO_NVLSTREE, NET_PROTO_SIMPLE, 3, {{31457281, 16}, {TOP_BYTES, 16}, {31457281, 16}}},
        {NET_ALGO_RING,
         NET_PROTO_LL128,
         11,
         {{31457280, 17},
          {1073741824, 17},
          {2147483648, 64},
          {2147483648, 128},
          {1342177280, 160},
          {2147483648, 256},
          {1074790400, 256},
          {444596224, 160},
          {301989888, 128},
          {117440512, 64},
          {37748736, 32}}},
        {NET_ALGO_NVLSTREE,
         NET_PROTO_SIMPLE,
         17,
         {{2147483648, 128},
          {6442450944, 128},
          {8053063680, 160},
          {9663676416, 192},
          {TOP_BYTES, EXT_RANKS},
          {402653184, TOP_RANKS},
          {402653184, 4096},
          {402653184, 2048},
          {536870912, 1024},
          {335544320, 512},
          {301989888, 256},
          {310378496, 160},
          {444596224, 160},
          {1074790400, 256},
          {2684354560, 256},
          {2147483648, 224},
          {1342177280, 160}}},
        {NET_ALGO_RING,
         NET_PROTO_SIMPLE,
         7,
         {{1073741824, 17},
          {TOP_BYTES, 17},
          {TOP_BYTES, EXT_RANKS},
          {9663676416, 192},
          {8053063680, 160},
          {2684354560, 64},
          {1610612736, 32}}},
};

static double lg(double x)
{
	return log2(x > 0 ? x : 1e-6);
}

/* Is (x, y) on the segment a-b (log2 plane, tolerance eps)? */
static bool on_edge(double x, double y, double ax, double ay, double bx, double by)
{
	const double eps = 1e-9;
	double cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
	double len = hypot(bx - ax, by - ay);
	if (fabs(cross) > eps * (len > 1 ? len : 1))
		return false;
	return x >= fmin(ax, bx) - eps && x <= fmax(ax, bx) + eps && y >= fmin(ay, by) - eps &&
	       y <= fmax(ay, by) + eps;
}

static bool inside(const region *r, double x, double y)
{
	bool in = false;
	for (int i = 0, j = r->n - 1; i < r->n; j = i++) {
		double ax = lg(r->v[j].bytes), ay = lg(r->v[j].ranks);
		double bx = lg(r->v[i].bytes), by = lg(r->v[i].ranks);
		if (on_edge(x, y, ax, ay, bx, by))
			return true;
		if ((ay > y) != (by > y) && x < ax + (y - ay) * (bx - ax) / (by - ay))
			in = !in;
	}
	return in;
}

int net_efa_regions(double bytes, double ranks, net_algo *a, net_proto *p, int max)
{
	int n = 0;
	double x = lg(bytes), y = lg(ranks);
	for (size_t i = 0; i < sizeof p5_8 / sizeof p5_8[0] && n < max; i++)
		if (inside(&p5_8[i], x, y)) {
			a[n] = p5_8[i].algo;
			p[n++] = p5_8[i].proto;
		}
	return n;
}
