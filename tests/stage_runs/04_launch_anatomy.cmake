# Stage 04's launch anatomy at tiny sizes: every node kind as a line and as a
# fork into 3 lines, and the article's graph built four ways (exit 0: every
# chain's slots and every batch of every variant verified).
csg_add_stage_run(launch_anatomy_tiny 04_graph_capture_gemm launch-anatomy
  --anatomy-nodes 3,6 --anatomy-repeats 3 --batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 2)
csg_add_stage_run(launch_anatomy_one_kind 04_graph_capture_gemm launch-anatomy
  --anatomy-kinds host-copy --anatomy-nodes 2,4,8 --anatomy-repeats 3 --batches 3 --m 16 --n 16 --k 16 --streams 2
  --warmup 0 --repeats 1)
csg_add_sanitizer_runs(04_graph_capture_gemm SUFFIX launch_anatomy
  launch-anatomy --anatomy-nodes 3,6 --anatomy-repeats 3 --batches 3 --m 16 --n 16 --k 16 --streams 3
  --warmup 0 --repeats 1)
