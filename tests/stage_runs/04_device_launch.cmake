# Stage 04's device-launch subcommand at a tiny size: a few launches each
# way, a fan-out smaller than the launches (the launcher relaunches itself),
# the work at odd sizes. Exit 0 means every counter, decision and output checked.
csg_add_stage_run(device_launch_tiny 04_graph_capture_gemm device-launch
  --launches 7 --work-launches 3 --work-batches 5 --work-size 33 --fan-out 3 --streams 3 --warmup 1 --repeats 2)
# Pageable host memory: the driver may refuse the flag for the work's copies;
# the run then measures the work's kernels alone and still verifies everything.
csg_add_stage_run(device_launch_pageable 04_graph_capture_gemm device-launch
  --host-memory pageable --launches 5 --work-launches 2 --work-batches 3 --work-size 16 --fan-out 2
  --streams 2 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(04_graph_capture_gemm SUFFIX device_launch
  device-launch --launches 5 --work-launches 2 --work-batches 3 --work-size 16 --fan-out 2 --streams 2
  --warmup 0 --repeats 1)
