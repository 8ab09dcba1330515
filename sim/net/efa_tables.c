/* efa_tables.c - the aws-ofi-nccl region tuner's tables, as data (efa.c
 * tests the points; net_efa_region in coll.c applies them).
 *
 * Source: A = aws/aws-ofi-nccl 2daf7d30, src/tuner/nccl_ofi_regions.cpp
 * (":N" below is a line of that file): region_init_internal_p5en (:295),
 * region_init_internal_p5_p5e (:668) and region_init_internal_p6 (:969),
 * each with branches for nRanks == 8 nNodes and nRanks == nNodes (p5/p5e
 * also nRanks == 2 nNodes, all-reduce only). A table lists the regions of
 * one collective in the plugin's order (the first containing the point
 * wins). p6-b300's tables (:1335) are not copied: no shipped node is one.
 *
 * Vertices are (bytes, ranks). TOP_BYTES and TOP_RANKS are the plugin's
 * TUNER_MAX_SIZE (100 GiB) and TUNER_MAX_RANKS (2^20; A include/tuner/
 * nccl_ofi_tuner_region.h). A vertex marked with the name of one of the
 * plugin's extend_region points (A :254-289) is written out: the plugin
 * extends the line through two vertices P, Q (in the log2 plane) to the
 * corner Z = (TOP_BYTES, TOP_RANKS): vertical (P.x = Q.x) to (P.x, Z.y),
 * horizontal to (Z.x, P.y), else y = m x + c (m, c through P and Q) meets
 * x = Z.x where m Z.x + c < Z.y, else y = Z.y at x = (Z.y - c) / m; back to
 * bytes and ranks as 2^x, 2^y, rounded to 10 significant digits (1e-10 in
 * log2, under the point test's tolerance). Example: p5/p5e, 8 ranks per
 * node, extended_nvlstree_simple_1 from (7.5 GiB, 160) and (9 GiB, 192):
 * m = log2(192/160) / log2(9/7.5) = 1, so ranks / bytes stays 160 / 7.5 GiB
 * and at 100 GiB ranks = 2133.33 (< 2^20). The vertex lists were copied
 * by a script from the source and the extended vertices computed by that
 * rule; test_net checks a sample of them against hand derivations.
 */
#include "net_int.h"

#define GIB       1073741824.0
#define TOP_BYTES (100 * GIB) /* TUNER_MAX_SIZE */
#define TOP_RANKS 1048576.0   /* TUNER_MAX_RANKS */

/* p5en, 8 ranks per node, all-reduce (A :304) */
static const efa_region p5en_8_ar[] = {
        /* A :319 */
        {NET_ALGO_TREE, NET_PROTO_LL, 5, {
                {0, 16},
                {196608, 16},
                {196608, 1024},
                {196608, TOP_RANKS}, /* extended_tree_ll */
                {0, TOP_RANKS},
        }},
        /* A :323 */
        {NET_ALGO_TREE, NET_PROTO_LL128, 7, {
                {196608, TOP_RANKS}, /* extended_tree_ll */
                {196608, 1024},
                {196608, 16},
                {13107200, 16},
                {129499136, 127},
                {218103808, 1024},
                {1231635365, TOP_RANKS}, /* extended_tree_ll128 */
        }},
        /* A :334 */
        {NET_ALGO_RING, NET_PROTO_LL128, 6, {
                {129499136, 127},
                {13107200, 16},
                {29884416, 16},
                {293601280, 32},
                {589299712, 64},
                {549453824, 128},
        }},
        /* A :344 */
        {NET_ALGO_NVLSTREE, NET_PROTO_SIMPLE, 12, {
                {1231635365, TOP_RANKS}, /* extended_tree_ll128 */
                {218103808, 1024},
                {129499136, 127},
                {549453824, 128},
                {589299712, 64},
                {293601280, 32},
                {29884416, 16},
                {TOP_BYTES, 16},
                {509607936, 32},
                {7516192768, 256},
                {17179869184, 448},
                {TOP_BYTES, 1548.976677}, /* extended_nvlstree_simple */
        }},
        /* A :360 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 5, {
                {TOP_BYTES, 1548.976677}, /* extended_nvlstree_simple */
                {17179869184, 448},
                {7516192768, 256},
                {509607936, 32},
                {TOP_BYTES, 16},
        }},
};

/* p5en, 8 ranks per node, all-gather (A :375) */
static const efa_region p5en_8_ag[] = {
        /* A :386 */
        {NET_ALGO_RING, NET_PROTO_LL, 9, {
                {0, 16},
                {786432, 16},
                {4718592, 128},
                {13630464, 384},
                {19922944, 512},
                {28305408, 768},
                {33554432, 1024},
                {2022280472, TOP_RANKS}, /* extended_ring_ll */
                {0, TOP_RANKS},
        }},
        /* A :399 */
        {NET_ALGO_RING, NET_PROTO_LL128, 12, {
                {2022280472, TOP_RANKS}, /* extended_ring_ll */
                {33554432, 1024},
                {28305408, 768},
                {19922944, 512},
                {13630464, 384},
                {4718592, 128},
                {786432, 16},
                {236978176, 16},
                {956301312, 64},
                {7247754240, 384},
                {17179865088, 896},
                {TOP_BYTES, 5415.83236}, /* extended_ring_ll128 */
        }},
        /* A :415 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 7, {
                {TOP_BYTES, 5415.83236}, /* extended_ring_ll128 */
                {17179865088, 896},
                {7247754240, 384},
                {956301312, 64},
                {494927872, 32},
                {236978176, 16},
                {TOP_BYTES, 16},
        }},
};

/* p5en, 8 ranks per node, reduce-scatter (A :432) */
static const efa_region p5en_8_rs[] = {
        /* A :443 */
        {NET_ALGO_RING, NET_PROTO_LL, 7, {
                {0, 16},
                {786432, 16},
                {4718592, 128},
                {7340032, 256},
                {18874368, 512},
                {TOP_BYTES, 291817.7244}, /* extended_ring_ll */
                {0, TOP_RANKS},
        }},
        /* A :454 */
        {NET_ALGO_RING, NET_PROTO_LL128, 11, {
                {TOP_BYTES, 291817.7244}, /* extended_ring_ll */
                {18874368, 512},
                {7340032, 256},
                {4718592, 128},
                {786432, 16},
                {291504128, 16},
                {589299712, 32},
                {2415919104, 128},
                {7247757312, 256},
                {17179869184, 640},
                {TOP_BYTES, 4478.790769}, /* extended_ring_ll128 */
        }},
        /* A :469 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 7, {
                {TOP_BYTES, 4478.790769}, /* extended_ring_ll128 */
                {17179869184, 640},
                {7247757312, 256},
                {2415919104, 128},
                {589299712, 32},
                {291504128, 16},
                {TOP_BYTES, 16},
        }},
};

/* p5en, 1 rank per node, all-reduce (A :487) */
static const efa_region p5en_1_ar[] = {
        /* A :502 */
        {NET_ALGO_TREE, NET_PROTO_LL, 4, {
                {0, 2},
                {65536, 2},
                {65536, 64},
                {65536, TOP_RANKS},
        }},
        /* A :506 */
        {NET_ALGO_TREE, NET_PROTO_LL128, 11, {
                {65536, TOP_RANKS},
                {65536, 64},
                {65536, 2},
                {262144, 2},
                {TOP_RANKS, 4},
                {4194304, 8},
                {16777216, 16},
                {33554432, 32},
                {TOP_RANKS, 32},
                {TOP_RANKS, 96},
                {14030178.97, TOP_RANKS}, /* extended_tree_ll128 */
        }},
        /* A :520 */
        {NET_ALGO_TREE, NET_PROTO_SIMPLE, 6, {
                {14030178.97, TOP_RANKS}, /* extended_tree_ll128 */
                {TOP_RANKS, 96},
                {1048577, 32},
                {33554431, 32},
                {33554432, 128},
                {TOP_BYTES, 409600}, /* extended_tree_simple */
        }},
        /* A :529 */
        {NET_ALGO_RING, NET_PROTO_LL128, 11, {
                {TOP_BYTES, 409600}, /* extended_tree_simple */
                {33554432, 128},
                {33554433, 32},
                {16777217, 16},
                {4194305, 8},
                {1048577, 4},
                {262144, 2},
                {6291456, 2},
                {50331648, 16},
                {301989888, 128},
                {TOP_BYTES, 116865.7137}, /* extended_ring_ll128 */
        }},
        /* A :543 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 5, {
                {TOP_BYTES, 116865.7137}, /* extended_ring_ll128 */
                {301989888, 128},
                {50331648, 16},
                {6291456, 2},
                {TOP_BYTES, 2},
        }},
};

/* p5en, 1 rank per node, all-gather (A :557) */
static const efa_region p5en_1_ag[] = {
        /* A :568 */
        {EFA_PAT, NET_PROTO_SIMPLE, 12, {
                {0, 2},
                {65536, 2},
                {TOP_RANKS, 2},
                {8388608, 8},
                {16777216, 16},
                {16777216, 32},
                {50331648, 64},
                {117440512, 128},
                {TOP_BYTES, 33851.35415}, /* extended_pat_simple */
                {TOP_BYTES, TOP_RANKS},
                {65536, TOP_RANKS},
                {0, TOP_RANKS},
        }},
        /* A :583 */
        {NET_ALGO_RING, NET_PROTO_LL128, 11, {
                {TOP_BYTES, 33851.35415}, /* extended_pat_simple */
                {117440512, 128},
                {50331648, 64},
                {16777216, 32},
                {16777217, 16},
                {8388609, 8},
                {TOP_RANKS, 2},
                {4194304, 2},
                {50331648, 16},
                {301989888, 128},
                {TOP_BYTES, 116865.7137}, /* extended_ring_ll128 */
        }},
        /* A :597 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 5, {
                {TOP_BYTES, 116865.7137}, /* extended_ring_ll128 */
                {301989888, 128},
                {50331648, 16},
                {4194304, 2},
                {TOP_BYTES, 2},
        }},
};

/* p5en, 1 rank per node, reduce-scatter (A :611) */
static const efa_region p5en_1_rs[] = {
        /* A :621 */
        {EFA_PAT, NET_PROTO_SIMPLE, 10, {
                {0, 2},
                {65536, 2},
                {TOP_RANKS, 2},
                {16777216, 32},
                {50331648, 64},
                {117440512, 128},
                {TOP_BYTES, 33851.35415}, /* extended_pat_simple */
                {TOP_BYTES, TOP_RANKS},
                {65536, TOP_RANKS},
                {0, TOP_RANKS},
        }},
        /* A :634 */
        {NET_ALGO_RING, NET_PROTO_LL128, 9, {
                {TOP_BYTES, 33851.35415}, /* extended_pat_simple */
                {117440512, 128},
                {50331648, 64},
                {16777216, 32},
                {TOP_RANKS, 2},
                {4194304, 2},
                {50331648, 16},
                {301989888, 128},
                {TOP_BYTES, 116865.7137}, /* extended_ring_ll128 */
        }},
        /* A :646 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 5, {
                {TOP_BYTES, 116865.7137}, /* extended_ring_ll128 */
                {301989888, 128},
                {50331648, 16},
                {4194304, 2},
                {TOP_BYTES, 2},
        }},
};

/* p5/p5e, 8 ranks per node, all-reduce (A :677) */
static const efa_region p5_8_ar[] = {
        /* A :699 */
        {NET_ALGO_TREE, NET_PROTO_LL128, 12, {
                {0, 16},
                {31457280, 16},
                {37748736, 32},
                {117440512, 64},
                {301989888, 128},
                {301989888, 256},
                {335544320, 512},
                {536870912, 1024},
                {402653184, 2048},
                {402653184, 4096},
                {402653184, TOP_RANKS}, /* extended_tree_ll128 */
                {0, TOP_RANKS},
        }},
        /* A :714 */
        {NET_ALGO_NVLSTREE, NET_PROTO_SIMPLE, 3, {
                {31457281, 16},
                {TOP_BYTES, 16},
                {31457281, 16},
        }},
        /* A :718 */
        {NET_ALGO_RING, NET_PROTO_LL128, 11, {
                {31457280, 17},
                {1073741824, 17},
                {2147483648, 64},
                {2147483648, 128},
                {1342177280, 160},
                {2147483648, 256},
                {1074790400, 256},
                {444596224, 160},
                {301989888, 128},
                {117440512, 64},
                {37748736, 32},
        }},
        /* A :732 */
        {NET_ALGO_NVLSTREE, NET_PROTO_SIMPLE, 17, {
                {2147483648, 128},
                {6442450944, 128},
                {8053063680, 160},
                {9663676416, 192},
                {TOP_BYTES, 2133.333333}, /* extended_nvlstree_simple_1 */
                {402653184, TOP_RANKS}, /* extended_nvlstree_simple_2 */
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
                {1342177280, 160},
        }},
        /* A :752 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 7, {
                {1073741824, 17},
                {TOP_BYTES, 17},
                {TOP_BYTES, 2133.333333}, /* extended_ring_simple */
                {9663676416, 192},
                {8053063680, 160},
                {2684354560, 64},
                {1610612736, 32},
        }},
};

/* p5/p5e, 2 ranks per node, all-reduce (A :770) */
static const efa_region p5_2_ar[] = {
        /* A :792 */
        {NET_ALGO_TREE, NET_PROTO_LL128, 11, {
                {0, 4},
                {1314816, 4},
                {1051648, 8},
                {1051648, 12},
                {2367488, 16},
                {5525504, 32},
                {9473024, 64},
                {88160256, 128},
                {178163712, 256},
                {TOP_BYTES, 140354.7138}, /* extended_tree_ll128 */
                {0, 140354.7138},
        }},
        /* A :806 */
        {NET_ALGO_RING, NET_PROTO_LL128, 14, {
                {1314816, 4},
                {19736576, 4},
                {41842688, 8},
                {296747008, 64},
                {257114112, 128},
                {269484032, 256},
                {178163712, 256},
                {88160256, 128},
                {9473024, 64},
                {5525504, 32},
                {2367488, 16},
                {1051648, 12},
                {1051648, 8},
                {1314816, 4},
        }},
        /* A :823 */
        {NET_ALGO_NVLSTREE, NET_PROTO_SIMPLE, 6, {
                {19736576, 4},
                {81844224, 4},
                {275775488, 8},
                {275775488, 48},
                {296747008, 64},
                {41842688, 8},
        }},
        /* A :832 */
        {NET_ALGO_TREE, NET_PROTO_LL128, 3, {
                {81844224, 4},
                {269484032, 4},
                {81844224, 4},
        }},
        /* A :836 */
        {NET_ALGO_TREE, NET_PROTO_SIMPLE, 3, {
                {269484032, 4},
                {TOP_BYTES, 4},
                {269484032, 4},
        }},
        /* A :840 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 10, {
                {81844224, 5},
                {TOP_BYTES, 5},
                {TOP_BYTES, 32},
                {1073741824, 40},
                {1073741824, 128},
                {787480576, 128},
                {296747008, 64},
                {275775488, 48},
                {275775488, 8},
                {81844224, 5},
        }},
        /* A :853 */
        {NET_ALGO_TREE, NET_PROTO_SIMPLE, 7, {
                {296747008, 64},
                {787480576, 128},
                {1073741824, 256},
                {44342492940, TOP_RANKS}, /* extended_tree_simple_1 */
                {473607430, TOP_RANKS}, /* extended_tree_simple_2 */
                {269484032, 256},
                {257114112, 128},
        }},
        /* A :863 */
        {NET_ALGO_NVLSTREE, NET_PROTO_SIMPLE, 6, {
                {44342492940, TOP_RANKS}, /* extended_nvlstree_simple */
                {1073741824, 256},
                {787480576, 128},
                {1073741824, 128},
                {1073741824, 40},
                {TOP_BYTES, 32},
        }},
};

/* p5/p5e, 1 rank per node, all-reduce (A :880) */
static const efa_region p5_1_ar[] = {
        /* A :891 */
        {NET_ALGO_TREE, NET_PROTO_LL128, 6, {
                {0, 16},
                {2367488, 16},
                {9999360, 64},
                {119477248, 128},
                {TOP_BYTES, 856.108295}, /* extended_tree_ll128 */
                {0, TOP_RANKS},
        }},
        /* A :895 */
        {NET_ALGO_RING, NET_PROTO_LL128, 9, {
                {0, 2},
                {4736000, 2},
                {269484032, 128},
                {TOP_BYTES, 60705.02766}, /* extended_ring_ll128 */
                {TOP_BYTES, 856.108295}, /* extended_tree_ll128 */
                {119477248, 128},
                {9999360, 64},
                {2367488, 16},
                {0, 16},
        }},
        /* A :907 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 4, {
                {4736000, 2},
                {TOP_BYTES, 2},
                {TOP_BYTES, 60705.02766}, /* extended_ring_ll128 */
                {269484032, 128},
        }},
};

/* p5/p5e, 1 rank per node, all-gather (A :918) */
static const efa_region p5_1_ag[] = {
        /* A :924 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 4, {
                {4194304, 2},
                {TOP_BYTES, 2},
                {TOP_BYTES, 20347.95991}, /* extended_ring_simple */
                {8589934592, 2048},
        }},
};

/* p5/p5e, 1 rank per node, reduce-scatter (A :938) */
static const efa_region p5_1_rs[] = {
        /* A :944 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 4, {
                {8388608, 2},
                {TOP_BYTES, 2},
                {TOP_BYTES, 25600}, /* extended_ring_simple */
                {4294967296, 1024},
        }},
};

/* p6-b200, 8 ranks per node, all-reduce (A :978) */
static const efa_region p6_8_ar[] = {
        /* A :994 */
        {NET_ALGO_TREE, NET_PROTO_LL, 4, {
                {0, 16},
                {393216, 16},
                {393216, TOP_RANKS}, /* extended_tree_ll */
                {0, TOP_RANKS},
        }},
        /* A :998 */
        {NET_ALGO_TREE, NET_PROTO_LL128, 10, {
                {393216, TOP_RANKS}, /* extended_tree_ll */
                {393216, 16},
                {4718592, 16},
                {18350080, 32},
                {40370176, 64},
                {57147392, 128},
                {72876032, 256},
                {96993280, 1024},
                {106430464, 2048},
                {245462267, TOP_RANKS}, /* extended_tree_ll128 */
        }},
        /* A :1012 */
        {NET_ALGO_RING, NET_PROTO_LL128, 5, {
                {90701824, 128},
                {50855936, 64},
                {18350080, 32},
                {133693440, 32},
                {120061952, 64},
        }},
        /* A :1021 */
        {NET_ALGO_NVLSTREE, NET_PROTO_SIMPLE, 19, {
                {245462267, TOP_RANKS}, /* extended_tree_ll128 */
                {106430464, 2048},
                {96993280, 1024},
                {72876032, 256},
                {57147392, 128},
                {40370176, 64},
                {18350080, 32},
                {50855936, 64},
                {90701824, 128},
                {120061952, 64},
                {133693440, 32},
                {18350080, 32},
                {4718592, 16},
                {TOP_BYTES, 16},
                {435159040, 32},
                {1072693248, 64},
                {10737418240, 512},
                {34359738368, 1500},
                {TOP_BYTES, 4299.264042}, /* extended_nvlstree_simple */
        }},
        /* A :1044 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 5, {
                {TOP_BYTES, 4299.264042}, /* extended_nvlstree_simple */
                {10737418240, 512},
                {1072693248, 64},
                {435159040, 32},
                {TOP_BYTES, 16},
        }},
};

/* p6-b200, 8 ranks per node, all-gather (A :1059) */
static const efa_region p6_8_ag[] = {
        /* A :1071 */
        {NET_ALGO_RING, NET_PROTO_LL, 10, {
                {0, 16},
                {786432, 16},
                {1572864, 32},
                {2621440, 64},
                {4718592, 128},
                {17301504, 256},
                {74973184, 1024},
                {213385216, 2048},
                {TOP_BYTES, 126394.5364}, /* extended_ring_ll */
                {0, TOP_RANKS},
        }},
        /* A :1085 */
        {NET_ALGO_RING, NET_PROTO_LL128, 14, {
                {TOP_BYTES, 126394.5364}, /* extended_ring_ll */
                {213385216, 2048},
                {74973184, 1024},
                {17301504, 256},
                {4718592, 128},
                {2621440, 64},
                {1572864, 32},
                {786432, 16},
                {198705152, 16},
                {456130560, 32},
                {871366656, 64},
                {8321499136, 512},
                {32212254720, 2048},
                {TOP_BYTES, 7028.714277}, /* extended_ring_ll128 */
        }},
        /* A :1103 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 7, {
                {TOP_BYTES, 7028.714277}, /* extended_ring_ll128 */
                {32212254720, 2048},
                {8321499136, 512},
                {871366656, 64},
                {456130560, 32},
                {198705152, 16},
                {TOP_BYTES, 16},
        }},
};

/* p6-b200, 8 ranks per node, reduce-scatter (A :1120) */
static const efa_region p6_8_rs[] = {
        /* A :1132 */
        {NET_ALGO_RING, NET_PROTO_LL, 11, {
                {0, 16},
                {786432, 16},
                {1572864, 32},
                {2621440, 64},
                {4718592, 128},
                {17301504, 256},
                {35127296, 512},
                {73924608, 1024},
                {209190912, 2048},
                {TOP_BYTES, 131038.6921}, /* extended_ring_ll */
                {0, TOP_RANKS},
        }},
        /* A :1147 */
        {NET_ALGO_RING, NET_PROTO_LL128, 15, {
                {TOP_BYTES, 131038.6921}, /* extended_ring_ll */
                {209190912, 2048},
                {73924608, 1024},
                {35127296, 512},
                {17301504, 256},
                {4718592, 128},
                {2621440, 64},
                {1572864, 32},
                {786432, 16},
                {219676672, 16},
                {508559360, 32},
                {592445440, 64},
                {4294967296, 256},
                {8589934592, 512},
                {TOP_BYTES, 6400}, /* extended_ring_ll128 */
        }},
        /* A :1166 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 7, {
                {TOP_BYTES, 6400}, /* extended_ring_ll128 */
                {8589934592, 512},
                {4294967296, 256},
                {592445440, 64},
                {508559360, 32},
                {219676672, 16},
                {TOP_BYTES, 16},
        }},
};

/* p6-b200, 1 rank per node, all-reduce (A :1184) */
static const efa_region p6_1_ar[] = {
        /* A :1186 */
        {NET_ALGO_TREE, NET_PROTO_LL, 5, {
                {0, 2},
                {32768, 2},
                {32768, 128},
                {32768, 131072},
                {0, 131072},
        }},
        /* A :1194 */
        {NET_ALGO_TREE, NET_PROTO_LL128, 6, {
                {32768, 2},
                {131072, 2},
                {8388608, 128},
                {8589934592, 131072},
                {32768, 131072},
                {32768, 128},
        }},
        /* A :1203 */
        {NET_ALGO_RING, NET_PROTO_LL128, 8, {
                {131072, 2},
                {3145728, 2},
                {297795584, 128},
                {TOP_BYTES, 45916},
                {TOP_BYTES, 59831},
                {164626432, 128},
                {20971520, 48},
                {3145728, 48},
        }},
        /* A :1214 */
        {NET_ALGO_TREE, NET_PROTO_SIMPLE, 6, {
                {3145728, 48},
                {20971520, 48},
                {164626432, 128},
                {TOP_BYTES, 59831},
                {TOP_BYTES, 131072},
                {8589934592, 131072},
        }},
        /* A :1223 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 4, {
                {3145728, 2},
                {TOP_BYTES, 2},
                {TOP_BYTES, 45916},
                {297795584, 128},
        }},
};

/* p6-b200, 1 rank per node, all-gather (A :1236) */
static const efa_region p6_1_ag[] = {
        /* A :1238 */
        {NET_ALGO_RING, NET_PROTO_LL, 3, {
                {0, 2},
                {65536, 2},
                {65536, 4},
        }},
        /* A :1244 */
        {EFA_PAT, NET_PROTO_SIMPLE, 9, {
                {0, 2},
                {65536, 4},
                {TOP_RANKS, 4},
                {4194305, 16},
                {12582912, 48},
                {88080384, 48},
                {248512512, 128},
                {34359738368, 17137},
                {0, 131072},
        }},
        /* A :1256 */
        {NET_ALGO_RING, NET_PROTO_LL128, 12, {
                {65536, 2},
                {2097152, 2},
                {16777216, 8},
                {291504128, 128},
                {34359738368, 15008},
                {34359738368, 17137},
                {248512512, 128},
                {88080384, 48},
                {12582912, 48},
                {4194305, 16},
                {TOP_RANKS, 4},
                {65536, 4},
        }},
        /* A :1271 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 5, {
                {2097152, 2},
                {34359738368, 2},
                {34359738368, 15008},
                {291504128, 128},
                {16777216, 8},
        }},
};

/* p6-b200, 1 rank per node, reduce-scatter (A :1285) */
static const efa_region p6_1_rs[] = {
        /* A :1287 */
        {NET_ALGO_RING, NET_PROTO_LL, 3, {
                {0, 2},
                {65536, 2},
                {65536, 4},
        }},
        /* A :1293 */
        {EFA_PAT, NET_PROTO_SIMPLE, 9, {
                {0, 2},
                {65536, 4},
                {TOP_RANKS, 4},
                {3345192, 8},
                {19065019, 16},
                {67108864, 48},
                {106954752, 48},
                {274877906944, 121928},
                {0, 131072},
        }},
        /* A :1305 */
        {NET_ALGO_RING, NET_PROTO_LL128, 9, {
                {65536, 2},
                {2097152, 2},
                {16777216, 8},
                {106954752, 48},
                {67108864, 48},
                {19065019, 16},
                {3345192, 8},
                {TOP_RANKS, 4},
                {65536, 4},
        }},
        /* A :1317 */
        {NET_ALGO_RING, NET_PROTO_SIMPLE, 5, {
                {2097152, 2},
                {274877906944, 2},
                {274877906944, 121928},
                {106954752, 48},
                {16777216, 8},
        }},
};

#define TAB(ec2, k, coll, r) {ec2, k, coll, r, (int)(sizeof r / sizeof r[0])}

static const efa_table tables[] = {
        TAB(NET_EC2_P5EN, 8, NET_ALLREDUCE, p5en_8_ar),
        TAB(NET_EC2_P5EN, 8, NET_ALLGATHER, p5en_8_ag),
        TAB(NET_EC2_P5EN, 8, NET_REDUCESCATTER, p5en_8_rs),
        TAB(NET_EC2_P5EN, 1, NET_ALLREDUCE, p5en_1_ar),
        TAB(NET_EC2_P5EN, 1, NET_ALLGATHER, p5en_1_ag),
        TAB(NET_EC2_P5EN, 1, NET_REDUCESCATTER, p5en_1_rs),
        TAB(NET_EC2_P5, 8, NET_ALLREDUCE, p5_8_ar),
        TAB(NET_EC2_P5, 2, NET_ALLREDUCE, p5_2_ar),
        TAB(NET_EC2_P5, 1, NET_ALLREDUCE, p5_1_ar),
        TAB(NET_EC2_P5, 1, NET_ALLGATHER, p5_1_ag),
        TAB(NET_EC2_P5, 1, NET_REDUCESCATTER, p5_1_rs),
        TAB(NET_EC2_P6_B200, 8, NET_ALLREDUCE, p6_8_ar),
        TAB(NET_EC2_P6_B200, 8, NET_ALLGATHER, p6_8_ag),
        TAB(NET_EC2_P6_B200, 8, NET_REDUCESCATTER, p6_8_rs),
        TAB(NET_EC2_P6_B200, 1, NET_ALLREDUCE, p6_1_ar),
        TAB(NET_EC2_P6_B200, 1, NET_ALLGATHER, p6_1_ag),
        TAB(NET_EC2_P6_B200, 1, NET_REDUCESCATTER, p6_1_rs),
};

const efa_table *net_efa_tables(int *n)
{
	*n = (int)(sizeof tables / sizeof tables[0]);
	return tables;
}
