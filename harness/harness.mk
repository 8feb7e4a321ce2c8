# harness/harness.mk: the build settings every day shares, and the rules
# that compile the harness into the including day's own build folder (so
# days build in parallel without sharing objects). Included by each day's
# Makefile and by harness/Makefile.
#
# Override on the command line: NVCC, ARCH, CFLAGS, NVCCFLAGS, CC,
# CUDA_HOME. Example: make ARCH=75 (a T4 only), make ARCH="90" NVCC=/opt/cuda/bin/nvcc

HX_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

NVCC      ?= nvcc
CUDA_HOME ?= $(patsubst %/bin/,%,$(dir $(shell command -v $(NVCC))))
CC        ?= cc
# Compute capabilities to build machine code for. The default covers every
# GPU of the course: 7.5 (T4) runs sm_75, 8.x runs sm_80, 9.0 (H100, H200)
# runs sm_90; PTX for the newest one lets later GPUs compile it at load.
ARCH      ?= 75 80 90
CFLAGS    ?= -O2
NVCCFLAGS ?= -O3

HX_PTX    := $(lastword $(ARCH))
GENCODE   := $(foreach a,$(ARCH),-gencode arch=compute_$(a),code=sm_$(a)) \
             -gencode arch=compute_$(HX_PTX),code=compute_$(HX_PTX)
HX_BUILT_FOR := built for $(foreach a,$(ARCH),sm_$(a)) + PTX compute_$(HX_PTX) (ARCH="$(ARCH)")

# Warnings are errors for the harness, whatever CFLAGS says.
HX_WARN   := -std=c11 -Wall -Wextra -pedantic -Werror
HX_CFLAGS := $(CFLAGS) $(HX_WARN) -I$(CUDA_HOME)/include
NVCC_ALL  := $(NVCCFLAGS) -std=c++17 $(GENCODE) -I$(HX_DIR) -Xcompiler -Wall

BUILD     ?= build
HX_MODS   := hx_cuda hx_args hx_input hx_ref hx_check hx_guard hx_time hx_lock
HX_HDRS   := $(foreach m,$(HX_MODS),$(HX_DIR)/$(m).h)
HX_OBJS   := $(foreach m,$(HX_MODS),$(BUILD)/hx/$(m).o)

$(BUILD)/hx/%.o: $(HX_DIR)/%.c $(HX_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HX_CFLAGS) -c $< -o $@

ifeq ($(MAKELEVEL),0)
$(info $(HX_BUILT_FOR))
endif
