# solution/onepass.mk: the three-way split in one pass after a count
# (solution/onepass.cu, its kernels in solution/singlepass_split3.cuh), and
# its configurations that lost (solution/dev/). Maintainers only: the
# student copy has no solution/ folder, so the exercise Makefile includes
# this fragment with `-include solution/onepass.mk` and nothing else
# depends on it. Uses the settings of ../harness/harness.mk and SCAN_OBJ
# of ../day31-scan/tile_scan.mk, which that Makefile includes first.
#   make threeway-onepass  build ./threeway-onepass
#   make onepass           build it and run its self-check
#   make dev               also build build/onepass/split3-variants (the
#                          configurations that lost, the look-back scheme),
#                          build/onepass/host-cost (the grading
#                          driver's host work over its plan; no GPU) and
#                          build/onepass/stream-cost (its checks' stream
#                          operations, alone and side by side; a GPU)
#   make dev-check         build it and run its --check, a step of
#                          ../harness/dev-check.sh (without a GPU: a line
#                          saying it was skipped, exit 0)
# This file defines no default goal: the Makefile's first target stays it.
ONEPASS_SAVED_GOAL := $(.DEFAULT_GOAL)

ONEPASS     := threeway-onepass
ONEPASS_DIR := $(BUILD)/onepass
SPLIT3_VARIANTS := $(ONEPASS_DIR)/split3-variants
HOST_COST   := $(ONEPASS_DIR)/host-cost
STREAM_COST := $(ONEPASS_DIR)/stream-cost
SCAN_DIR    ?= ../day31-scan
# What onepass.cu (and so split3_variants.cu, which includes it) reads.
ONEPASS_DEPS := solution/onepass.cu solution/singlepass_split3.cuh \
                $(SCAN_DIR)/ranges.cuh $(SCAN_DIR)/tile.cuh \
                $(SCAN_DIR)/tile_scan.h $(HX_HDRS)
# The reference solution's scatterThreeWay (solution/threeway.cu), the
# two-scan row's last step, is compiled inside each program's translation
# unit through nvcc's -include: the headers are compiled once, not twice,
# and the kernels are the same, PTX for PTX.
WITH_SOLUTION := -include solution/threeway.cu

$(ONEPASS_DIR)/onepass.o: $(ONEPASS_DEPS) solution/threeway.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ALL) $(WITH_SOLUTION) -c $< -o $@

# -lineinfo, as every day's dev/ objects: under compute-sanitizer a hazard
# names its source line; the machine code stays as it is.
$(ONEPASS_DIR)/split3_variants.o: solution/dev/split3_variants.cu \
                                  $(ONEPASS_DEPS) solution/threeway.cu \
                                  $(SCAN_DIR)/lookback.cuh \
                                  $(SCAN_DIR)/dev/lookback_variants.cuh \
                                  solution/onepass.mk
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ALL) -lineinfo $(WITH_SOLUTION) -c $< -o $@

# The day-31 scan's object, as the driver links it (SCAN_OBJ, from
# ../day31-scan/tile_scan.mk).
ONEPASS_LINKED := $(SCAN_OBJ) $(HX_OBJS)

$(ONEPASS): $(ONEPASS_DIR)/onepass.o $(ONEPASS_LINKED)
	$(NVCC) $(NVCC_ALL) -o $@ $^

$(SPLIT3_VARIANTS): $(ONEPASS_DIR)/split3_variants.o $(ONEPASS_LINKED)
	$(NVCC) $(NVCC_ALL) -o $@ $^

.PHONY: onepass onepass-dev onepass-dev-check dev dev-check
onepass: $(ONEPASS)
	./$(ONEPASS) --check

# The exercise's part of the maintainers' dev and dev-check targets.
dev: onepass-dev
dev-check: onepass-dev-check

onepass-dev: $(ONEPASS) $(SPLIT3_VARIANTS) $(HOST_COST) $(STREAM_COST)

# The grading driver's host work over its plan (solution/dev/host_cost.cu;
# no GPU needed): its plan, kernels.cu's host sums, the harness.
$(ONEPASS_DIR)/host_cost.o: solution/dev/host_cost.cu driver.h plan.h \
                            $(HX_HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ALL) -I. -I$(SCAN_DIR) -c $< -o $@

$(HOST_COST): $(ONEPASS_DIR)/host_cost.o $(BUILD)/plan.o $(BUILD)/kernels.o \
              $(SCAN_OBJ) $(HX_OBJS)
	$(NVCC) $(NVCC_ALL) -o $@ $^

# The driver's checks in stream operations (solution/dev/stream_cost.cu;
# a GPU to run): kernels.cu's kCheckLaunch, the harness.
$(ONEPASS_DIR)/stream_cost.o: solution/dev/stream_cost.cu driver.h $(HX_HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ALL) -I. -c $< -o $@

$(STREAM_COST): $(ONEPASS_DIR)/stream_cost.o $(BUILD)/kernels.o $(BUILD)/plan.o \
                $(SCAN_OBJ) $(HX_OBJS)
	$(NVCC) $(NVCC_ALL) -o $@ $^

onepass-dev-check: onepass-dev
	@bash ../harness/dev-check.sh day33-exercise-threeway \
	    "$(SPLIT3_VARIANTS) --check"

.DEFAULT_GOAL := $(ONEPASS_SAVED_GOAL)
