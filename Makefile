# CUDA course, days 31 and 33: scan, compaction, partition, the three-way
# exercise and its grading tool.
#
#   make                 build every day (and the harness tests)
#   make run             build and run the main lab (day33-compaction)
#   make check           host tests, every lab compiled, and the GPU
#                        self-checks where a GPU is present
#   make grade SUBMISSIONS=<class folder> [OUT=grades] [ARCH=90] [GRADE_FLAGS="--jobs 8"]
#   make day31-scan | day33-compaction | day33-exercise-threeway | harness
#   make clean
#
# NVCC, ARCH, CFLAGS, NVCCFLAGS, CC and CUDA_HOME pass through to every
# day: make ARCH=75, make CFLAGS=-O0.
include harness/harness.mk

DAYS := day31-scan day33-compaction day33-exercise-threeway
SUBMISSIONS ?=
OUT ?= grades

.PHONY: all run check grade clean harness $(DAYS)

all: harness $(DAYS)

harness:
	$(MAKE) -C harness all

day31-scan day33-compaction:
	$(MAKE) -C $@

day33-exercise-threeway:
	$(MAKE) -C $@ build-all

run: all
	$(MAKE) -C day33-compaction run

# Host tests first (no GPU needed), then the GPU self-checks (skipped, with
# the reason, where there is no GPU), then the grading tool's corpus.
check: all
	$(MAKE) -C harness test
	bash harness/gpu-checks.sh
	python3 harness/grade-tests/run_tests.py

# NVCC always, ARCH only when given (make grade ARCH=90): by default the
# grader builds the driver and the modules for the GPUs it finds.
GRADE_ARCH = $(if $(filter command line environment,$(origin ARCH)),--arch "$(ARCH)")
grade:
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=<class folder> [OUT=grades] [ARCH=90] [NVCC=...] [GRADE_FLAGS=...]"; exit 2; }
	python3 harness/grade.py "$(SUBMISSIONS)" --out "$(OUT)" --nvcc "$(NVCC)" $(GRADE_ARCH) $(GRADE_FLAGS)

clean:
	$(MAKE) -C harness clean
	for d in $(DAYS); do $(MAKE) -C $$d clean || exit 1; done
