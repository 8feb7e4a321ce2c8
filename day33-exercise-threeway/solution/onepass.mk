# solution/onepass.mk: the three-way split in one pass after a count
# (solution/onepass.cu). Maintainers only: the student copy has no
# solution/ folder, so the exercise Makefile includes this fragment with
# `-include solution/onepass.mk` and nothing else depends on it. Uses the
# settings of ../harness/harness.mk, which that Makefile includes first.
#   make threeway-onepass   build ./threeway-onepass
#   make onepass            build it and run its self-check
ONEPASS     := threeway-onepass
ONEPASS_DIR := $(BUILD)/onepass
SCAN_DIR    ?= ../day31-scan

$(ONEPASS_DIR)/onepass.o: solution/onepass.cu $(SCAN_DIR)/lookback.cuh \
                          $(SCAN_DIR)/ranges.cuh $(SCAN_DIR)/tile_scan.h \
                          $(HX_HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ALL) -c $< -o $@

# The reference solution's scatterThreeWay, the two-scan row's last step.
$(ONEPASS_DIR)/threeway.o: solution/threeway.cu $(HX_NVCC_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ALL) -c $< -o $@

$(ONEPASS_DIR)/tile_scan.o: $(SCAN_DIR)/tile_scan.cu $(SCAN_DIR)/tile_scan.h \
                            $(HX_HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ALL) -c $< -o $@

$(ONEPASS): $(ONEPASS_DIR)/onepass.o $(ONEPASS_DIR)/threeway.o \
            $(ONEPASS_DIR)/tile_scan.o $(HX_OBJS)
	$(NVCC) $(NVCC_ALL) -o $@ $^

.PHONY: onepass
onepass: $(ONEPASS)
	./$(ONEPASS) --check
