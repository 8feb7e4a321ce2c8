# harness/harness.mk: the build settings every day shares, and the rules
# that compile the harness, once, into its own build folder
# (harness/build/hx/), which every day links. Included by each day's
# Makefile, by harness/Makefile and by the top Makefile. Two makes must
# not build those objects at once: the top Makefile builds them (make -C
# harness objs) before it starts the days side by side.
#
# Override on the command line: NVCC, ARCH, CFLAGS, NVCCFLAGS, CC,
# CUDA_HOME. Examples: make ARCH=75 (a T4 only), make ARCH="sm_86 90",
# make NVCC=/opt/cuda/bin/nvcc, make CUDA_HOME=/usr/local/cuda-12.6.
#
# What a day's rules may use:
#   HX_HDRS   prerequisites of every object a day compiles with nvcc: the
#             harness headers and $(HX_NVCC_STAMP)
#   HX_OBJS   the harness objects, built in $(HX_BUILD)/hx/: the C
#             modules with CC and CFLAGS, hx_gpu.cu (its one CUDA file)
#             with nvcc
#   HX_BUILD  the harness's build folder, harness/$(BUILD)
#   hx_build_of  $(call hx_build_of,DIR): the build folder of the part in
#             DIR (DIR/$(BUILD); BUILD itself where it is absolute)
#   NVCC_ALL  the nvcc flags: NVCCFLAGS, -std=c++17, the -gencode list for
#             ARCH, HX_CCCL (below), -I to the harness
#   GENCODE   the -gencode list alone
#   HX_ARCH   ARCH as plain numbers, each once, in order ("sm_86 90" gives
#             "86 90"): what to hand a tool that takes a list of its own
#
# Settings stamps: $(BUILD)/nvcc.flags holds NVCC, ARCH and NVCCFLAGS as
# built, $(BUILD)/cc.flags CC, CFLAGS and CUDA_HOME; each is rewritten only
# when its text changes, which is the same from every folder. Every object
# depends on the stamp of its build folder (a day's nvcc objects through
# $(HX_HDRS), the harness objects on $(HX_BUILD)'s directly), so that
# changing a setting rebuilds every object it affects, and a binary never
# mixes objects built with two settings. A rule that compiles with nvcc
# must list $(HX_HDRS), or $(HX_NVCC_STAMP), among its prerequisites (or,
# for an object in another part's folder, that folder's nvcc.flags).

HX_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

# Goals that need no CUDA Toolkit: the settings are not checked for them.
HX_NO_TOOLKIT_GOALS := help clean handout
HX_CHECK_SETTINGS := $(if $(MAKECMDGOALS),$(filter-out $(HX_NO_TOOLKIT_GOALS),$(MAKECMDGOALS)),all)

# The toolkit: NVCC names nvcc (default: $(CUDA_HOME)/bin/nvcc when
# CUDA_HOME is set, else nvcc on the PATH); CUDA_HOME defaults to the
# folder above the bin/ that holds it.
ifeq ($(origin NVCC),undefined)
NVCC := $(if $(CUDA_HOME),$(CUDA_HOME)/bin/nvcc,nvcc)
endif
HX_NVCC_PATH := $(shell command -v '$(NVCC)' 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/,%,$(dir $(HX_NVCC_PATH)))
ifneq ($(HX_CHECK_SETTINGS),)
ifeq ($(HX_NVCC_PATH),)
$(error nvcc not found: NVCC=$(NVCC) names no program (CUDA_HOME=$(if $(CUDA_HOME),$(CUDA_HOME),unset), PATH=$(PATH)); install the CUDA Toolkit 12.x or 13.x, or give make CUDA_HOME=<toolkit folder> or NVCC=<path to nvcc>)
endif
endif

CC ?= cc
CFLAGS ?= -O2
NVCCFLAGS ?= -O3

# Compute capabilities to build machine code for. The default covers every
# GPU of the course: 7.5 (T4) runs sm_75, 8.x runs sm_80, 9.0 (H100, H200)
# runs sm_90; PTX for the newest one lets later GPUs compile it at load.
# Each word may be written 86, sm_86 or compute_86 (all mean 86 here), with
# an a or f suffix for nvcc's architecture-specific targets (90a).
ARCH ?= 75 80 90

hx_nodigits = $(subst 0,,$(subst 1,,$(subst 2,,$(subst 3,,$(subst 4,,$(subst 5,,$(subst 6,,$(subst 7,,$(subst 8,,$(subst 9,,$1))))))))))
hx_arch_num = $(patsubst compute_%,%,$(patsubst sm_%,%,$1))
# A number: two digits or more, then at most one a or f.
hx_arch_ok  = $(and $(filter 0% 1% 2% 3% 4% 5% 6% 7% 8% 9%,$(filter-out 0 1 2 3 4 5 6 7 8 9,$1)),$(call hx_suffix_ok,$1,$(call hx_nodigits,$1)))
hx_suffix_ok = $(if $2,$(and $(filter a f,$2),$(filter %$2,$1)),ok)
hx_uniq     = $(if $1,$(firstword $1) $(call hx_uniq,$(filter-out $(firstword $1),$1)))
HX_ARCH_BAD := $(strip $(foreach a,$(ARCH),$(if $(call hx_arch_ok,$(call hx_arch_num,$a)),,$a)))
HX_ARCH     := $(call hx_uniq,$(foreach a,$(ARCH),$(call hx_arch_num,$a)))
ifneq ($(HX_CHECK_SETTINGS),)
ifneq ($(HX_ARCH_BAD)$(if $(strip $(ARCH)),,empty),)
$(error ARCH="$(ARCH)": $(if $(HX_ARCH_BAD),$(HX_ARCH_BAD) is not a compute capability,it is empty); write each as 86, sm_86 or compute_86, e.g. ARCH=75 or ARCH="80 90")
endif
endif

HX_PTX    := $(lastword $(HX_ARCH))
GENCODE   := $(foreach a,$(HX_ARCH),-gencode arch=compute_$(a),code=sm_$(a)) \
             -gencode arch=compute_$(HX_PTX),code=compute_$(HX_PTX)
HX_BUILT_FOR := built for $(foreach a,$(HX_ARCH),sm_$(a)) + PTX compute_$(HX_PTX) (ARCH="$(ARCH)")

# Warnings are errors for the harness, whatever CFLAGS says.
HX_WARN   := -std=c11 -Wall -Wextra -pedantic -Werror
HX_CFLAGS := $(CFLAGS) $(HX_WARN) -I$(CUDA_HOME)/include
# CCCL (CUB, Thrust, libcu++) without its support for types the course
# never hands it: half, bfloat16, the FP8, FP6 and FP4 types, and 128-bit
# integers and floats, and without CUB's NVTX ranges (host-side names for
# a profiler's timeline; Nsight still names every CUB kernel). Their
# headers are then not read, which takes seconds off every file that
# includes CUB or <cuda/atomic>; each kernel's PTX and machine code stays
# the same byte for byte.
HX_CCCL   := $(patsubst %,-DCCCL_DISABLE_%_SUPPORT,FP16 BF16 NVFP8 NVFP6 \
               NVFP4 INT128 FLOAT128) -DCCCL_DISABLE_NVTX
# --threads 0: nvcc compiles a file's architectures side by side, as many
# at once as the machine has cores (the last of a -j build's files then
# uses every core, not one); the machine code is the same.
HX_NVCC_THREADS := $(if $(filter --threads% -t%,$(NVCCFLAGS)),,--threads 0)
NVCC_ALL  := $(HX_NVCC_THREADS) $(NVCCFLAGS) -std=c++17 $(GENCODE) \
             $(HX_CCCL) -I$(HX_DIR) -Xcompiler -Wall

BUILD     ?= build
hx_build_of = $(if $(filter /%,$(BUILD)),$(BUILD),$(patsubst ./%,%,$1/$(BUILD)))
HX_BUILD  := $(call hx_build_of,$(HX_DIR))
# The C modules (a .h and a .c each), the CUDA ones (a .h and a .cu), and
# the headers with no module of their own.
HX_MODS   := hx_cuda hx_args hx_input hx_ref hx_check hx_guard hx_time hx_lock \
             hx_bench
HX_CU_MODS := hx_gpu
HX_NVCC_STAMP := $(BUILD)/nvcc.flags
HX_CC_STAMP   := $(BUILD)/cc.flags
HX_HEADERS := $(foreach m,$(HX_MODS) $(HX_CU_MODS),$(HX_DIR)/$(m).h) \
              $(HX_DIR)/hx_mix.h $(HX_DIR)/hx_check_parts.h
HX_HDRS   := $(HX_HEADERS) $(HX_NVCC_STAMP)
HX_OBJS   := $(foreach m,$(HX_MODS) $(HX_CU_MODS),$(HX_BUILD)/hx/$(m).o)

# The settings each stamp records: what changes the objects built from it
# (not the path to the harness, which differs from folder to folder).
HX_NVCC_SETTINGS := $(HX_NVCC_PATH) $(filter-out -I$(HX_DIR),$(NVCC_ALL))
HX_CC_SETTINGS   := $(CC) $(HX_CFLAGS)
hx_quote = '$(subst ','\'',$1)'

# Pattern rules, and a force target whose name starts with a dot: neither
# can become the default goal of the Makefile that includes this one.
%/nvcc.flags: .hx_force
	@mkdir -p $(@D)
	@printf '%s\n' $(call hx_quote,$(HX_NVCC_SETTINGS)) | cmp -s - $@ || \
	    printf '%s\n' $(call hx_quote,$(HX_NVCC_SETTINGS)) > $@

%/cc.flags: .hx_force
	@mkdir -p $(@D)
	@printf '%s\n' $(call hx_quote,$(HX_CC_SETTINGS)) | cmp -s - $@ || \
	    printf '%s\n' $(call hx_quote,$(HX_CC_SETTINGS)) > $@

# hx_check.o is one object made of two sources, hx_check.c and
# hx_check_print.c (its printed report; each within the line budget),
# joined by a relocatable link, so that a rule that links hx_check.o alone
# gets all of it. An explicit rule, between two lines that keep the
# including Makefile's default goal its own.
hx_default_goal := $(.DEFAULT_GOAL)
$(HX_BUILD)/hx/hx_check.o: $(HX_BUILD)/hx/parts/hx_check.o \
                           $(HX_BUILD)/hx/parts/hx_check_print.o
	$(LD) -r -o $@ $^
.DEFAULT_GOAL := $(hx_default_goal)

$(HX_BUILD)/hx/parts/%.o: $(HX_DIR)/%.c $(HX_HEADERS) $(HX_BUILD)/cc.flags
	@mkdir -p $(dir $@)
	$(CC) $(HX_CFLAGS) -c $< -o $@

$(HX_BUILD)/hx/%.o: $(HX_DIR)/%.c $(HX_HEADERS) $(HX_BUILD)/cc.flags
	@mkdir -p $(dir $@)
	$(CC) $(HX_CFLAGS) -c $< -o $@

$(HX_BUILD)/hx/%.o: $(HX_DIR)/%.cu $(HX_HEADERS) $(HX_BUILD)/nvcc.flags
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ALL) -c $< -o $@

.PHONY: .hx_force
.hx_force:
# Made by pattern rules, so intermediate to make: never to be deleted.
.SECONDARY: $(HX_NVCC_STAMP) $(HX_CC_STAMP) $(HX_BUILD)/nvcc.flags \
            $(HX_BUILD)/cc.flags

ifeq ($(MAKELEVEL),0)
ifneq ($(HX_CHECK_SETTINGS),)
$(info $(HX_BUILT_FOR))
endif
endif
