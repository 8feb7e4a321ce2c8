# day31-scan/tile_scan.mk: the rule for the day-31 scan's object,
# $(SCAN_OBJ) (build/shared/tile_scan.o of this folder), which day 31,
# day 33 and the exercise link: compiled once, here, for all three. Each
# Makefile includes this after ../harness/harness.mk, with SCAN_DIR set to
# this folder. The object has a settings stamp of its own (in its folder),
# so that a day built with other settings rebuilds it and not day 31's
# other objects. Two makes must not build it at once: the top Makefile
# builds it (make -C day31-scan objs) before it starts the days side by
# side. An explicit rule, between two lines that keep the including
# Makefile's default goal its own.
SCAN_SHARED := $(call hx_build_of,$(SCAN_DIR))/shared
SCAN_OBJ    := $(SCAN_SHARED)/tile_scan.o

tile_scan_goal := $(.DEFAULT_GOAL)
$(SCAN_OBJ): $(SCAN_DIR)/tile_scan.cu $(SCAN_DIR)/tile_scan.h $(HX_HEADERS) \
             $(SCAN_SHARED)/nvcc.flags
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ALL) -c $< -o $@
.DEFAULT_GOAL := $(tile_scan_goal)
.SECONDARY: $(SCAN_SHARED)/nvcc.flags
