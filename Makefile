# CUDA course, days 31 and 33: scan, compaction, partition, the three-way
# exercise and its grading tool. `make help` lists the targets.
#
# NVCC, ARCH, CFLAGS, NVCCFLAGS, CC and CUDA_HOME pass through to every
# day: make ARCH=75, make ARCH="sm_86 90", make CFLAGS=-O0. Changing one
# rebuilds what it affects (harness/harness.mk says how).
include harness/harness.mk

DAYS := day31-scan day33-compaction day33-exercise-threeway
SUBMISSIONS ?=
OUT ?= grades
DEST ?=

.PHONY: all run check test help handout grade clean harness dev dev-check \
        budgets $(DAYS) $(SHARED) exercise-stamps exercise-driver \
        exercise-onepass

# The slowest files first: under -j, make starts the parts in this order
# (day 33's compaction.o and day 31's scan.o are the long ones), the
# harness's tests last.
EX := day33-exercise-threeway
EXERCISE_PARTS := $(if $(wildcard $(EX)/solution),exercise-onepass) \
                  exercise-driver
all: day33-compaction day31-scan $(EXERCISE_PARTS) $(EX) harness

# What several parts link is compiled once, in the folder of its sources,
# and before any part that links it starts, so that two makes never build
# one object at once: the harness's objects (harness/build/hx/, which
# every part links) and the day-31 scan's
# (day31-scan/build/shared/tile_scan.o, which day 33 and the exercise
# link too), and the exercise's settings stamps (below). They build side
# by side.
SHARED := harness-objs scan-objs exercise-stamps
harness $(DAYS): $(SHARED)

harness-objs:
	$(MAKE) -C harness objs

scan-objs:
	$(MAKE) -C day31-scan objs

harness:
	$(MAKE) -C harness all

day31-scan day33-compaction:
	$(MAKE) -C $@

# In the maintainers' copy, build-all also compiles the reference solution
# (so that a machine without a GPU still compiles it); a student's copy has
# none, and builds the exercise's default goal. Its parts are made first,
# each by a make of its own, side by side: the driver and the modules
# (modules; a student's copy: all), and in the maintainers' copy the
# reference's one-pass program
# (threeway-onepass, the longest file). Inside one make, make -j2 would
# start onepass.o and wait for it with a core idle. The folder's settings
# stamps are made before them, so that two makes never write one.
exercise-stamps:
	$(MAKE) -C $(EX) stamps

exercise-driver: $(SHARED)
	$(MAKE) -C $(EX) $(if $(wildcard $(EX)/solution),modules,all)

exercise-onepass: $(SHARED)
	$(MAKE) -C $(EX) threeway-onepass

$(EX): $(EXERCISE_PARTS)
	$(MAKE) -C $@ $(if $(wildcard $(EX)/solution),build-all,all)

run: all
	$(MAKE) -C day33-compaction run

# The line budgets first (harness/budgets.py), then the host tests (no GPU
# needed), then the GPU checks (skipped, with the reason, where there is no
# GPU: then the exercise's CPU check instead), the Markdown link check,
# then, where this copy has them (a student's copy from `make handout` does
# not), the CPU check's and the handout's tests and the grading tool's
# tests.
check: budgets all
	$(MAKE) -C harness test
	$(MAKE) -C day33-exercise-threeway test-host
	bash harness/gpu-checks.sh
	python3 harness/linkcheck.py
	@if [ -d day33-exercise-threeway/solution ]; then \
	    bash harness/tests/test_cpu_check.sh && bash harness/tests/test_handout.sh; \
	else echo "CPU check and handout tests: in the maintainers' copy only"; fi
	@if [ -d harness/grade-tests ]; then \
	    echo "python3 harness/grade-tests/run_tests.py $(RUN_TESTS_FLAGS)"; \
	    python3 harness/grade-tests/run_tests.py $(RUN_TESTS_FLAGS); \
	else \
	    echo "grading tool tests: not part of this copy (no harness/grade-tests/)"; \
	fi

test: check

budgets:
	python3 harness/budgets.py

# The maintainers' programs in each day's dev/ (variants that lost,
# instruments, reproducers): never built by make, make run or make check.
# dev builds them all, dev-check also runs their checks (GPU; skipped with
# a line without one). A day with no such target says so.
# A student's copy (make handout) has no dev/ folders, no grading tool and
# no handout script: its help leaves those targets out, and each says so in
# one line (dev and dev-check through each day's Makefile).
MAINTAINERS := $(wildcard harness/handout.sh)
COMMA := ,

dev dev-check:
	@for d in $(DAYS); do \
	    $(MAKE) -s -q -C $$d $@ >/dev/null 2>&1; \
	    if [ $$? -eq 2 ]; then echo "$$d: no $@ target"; continue; fi; \
	    $(MAKE) -C $$d $@ || exit 1; \
	done

help:
	@echo "make                 build every day and the harness (ARCH, NVCC, CFLAGS, ... as below)"
	@echo "make run             build everything, then run the main lab (day33-compaction)"
	@echo "make check           host tests, every lab built, the GPU checks (skipped without a GPU: then your kernel's CPU check)$(if $(MAINTAINERS),$(COMMA) the grading tool's tests)"
	@echo "make test            the same as make check"
	@echo "make budgets         every C, CUDA and Python file against its line budget (harness/budgets.py)"
	$(if $(MAINTAINERS),@echo "make dev             build every day's dev/ programs (maintainers: variants, instruments)")
	$(if $(MAINTAINERS),@echo "make dev-check       build them and run their checks (GPU; skipped without one)")
	$(if $(MAINTAINERS),@echo "make handout DEST=d  write the students' copy of the course into the new folder d")
	$(if $(MAINTAINERS),@echo "make grade SUBMISSIONS=<class folder> [OUT=grades] [ARCH=90] [NVCC=...] [GRADE_FLAGS=...]  grade a class (instructors)")
	@echo "make clean           remove every build output"
	@echo "make day31-scan | day33-compaction | day33-exercise-threeway | harness   one part"
	@echo "settings: ARCH=\"75 80 90\" (each 86, sm_86 or compute_86), NVCC, CUDA_HOME, CC, CFLAGS, NVCCFLAGS"

handout:
	@test -n "$(MAINTAINERS)" || { echo "make handout: this is already a student's copy (no harness/handout.sh)"; exit 2; }
	@bash harness/handout.sh "$(DEST)"

# NVCC always, ARCH only when given (make grade ARCH=90): by default the
# grader builds the driver and the modules for the GPUs it finds.
GRADE_ARCH = $(if $(filter command line environment,$(origin ARCH)),--arch "$(ARCH)")
grade:
	@test -f harness/grade.py || { echo "make grade: the grading tool is not in this copy (the instructors' copy has it)"; exit 2; }
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=<class folder> [OUT=grades] [ARCH=90] [NVCC=...] [GRADE_FLAGS=...]"; exit 2; }
	python3 harness/grade.py "$(SUBMISSIONS)" --out "$(OUT)" --nvcc "$(NVCC)" $(GRADE_ARCH) $(GRADE_FLAGS)

clean:
	$(MAKE) -C harness clean
	for d in $(DAYS); do $(MAKE) -C $$d clean || exit 1; done
