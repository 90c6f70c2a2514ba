# Stage 02 at tiny sizes, every kind, with a size that is not a multiple of 8;
# then the --quick path's options with the sizes cut down (--sizes wins over
# --quick), one kind. Each takes well under a few seconds on a GPU.
csg_add_stage_run(tiny 02_pinned_vs_pageable
  --sizes 4K,1000,256K --warmup 1 --repeats 2 --overlap-mib 1 --kernel-ms 1 --pin-max-mib 1)
csg_add_stage_run(quick_pinned 02_pinned_vs_pageable
  --quick --sizes 64K --host-memory pinned --overlap-mib 2 --kernel-ms 2 --pin-max-mib 4)
csg_add_sanitizer_runs(02_pinned_vs_pageable
  --sizes 4K,1000 --warmup 0 --repeats 1 --overlap-mib 1 --kernel-ms 1 --pin-max-mib 1)
csg_add_stage_run(tiny_timeline 02_pinned_vs_pageable
  --sizes 4K --warmup 0 --repeats 1 --overlap-mib 1 --kernel-ms 1 --pin-max-mib 1 --timeline)
