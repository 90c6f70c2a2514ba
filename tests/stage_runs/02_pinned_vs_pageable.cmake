# Stage 02's lesson at tiny sizes, one not a multiple of 8, and a small async copy.
csg_add_stage_run(tiny 02_pinned_vs_pageable --sizes 4K,1000,256K --async-mib 1 --warmup 1 --repeats 2)
# Each subcommand at tiny sizes: the sweep over every kind, and its --quick
# path with the sizes cut down (--sizes wins over --quick) on one kind; the
# overlap; the pinning cost; the timeline (exit 0 also when CUPTI is
# unavailable: the output says why). Each takes well under a few seconds on a GPU.
csg_add_stage_run(sweep_tiny 02_pinned_vs_pageable sweep --sizes 4K,1000,256K --warmup 1 --repeats 2)
csg_add_stage_run(sweep_quick_pinned 02_pinned_vs_pageable sweep --quick --sizes 64K --host-memory pinned)
csg_add_stage_run(overlap_tiny 02_pinned_vs_pageable overlap --overlap-mib 1 --kernel-ms 1 --warmup 1 --repeats 2)
csg_add_stage_run(pinning_cost_tiny 02_pinned_vs_pageable pinning-cost --pin-max-mib 4 --warmup 0 --repeats 1)
csg_add_stage_run(timeline_tiny 02_pinned_vs_pageable timeline --overlap-mib 1 --kernel-ms 1 --warmup 0 --repeats 1
  --timeline-batches 3)
# Under the sanitizers: the lesson, and the subcommands that issue copies and kernels.
csg_add_sanitizer_runs(02_pinned_vs_pageable --sizes 4K,1000 --async-mib 1 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(02_pinned_vs_pageable SUFFIX sweep sweep --sizes 4K,1000 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(02_pinned_vs_pageable SUFFIX overlap
  overlap --overlap-mib 1 --kernel-ms 1 --warmup 0 --repeats 1)
