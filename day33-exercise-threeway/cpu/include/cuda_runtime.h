/* cuda_runtime.h for the CPU check: cudacpu.h, which g++ reads before threeway.cu,
 * already defines what the exercise's kernel may use from it. */
