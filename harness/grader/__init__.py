"""grader: grades a class of day 33 three-way submissions.

One rule: no host code from a submission ever runs. Each submission's
threeway.cu is compiled to a device module only (compiler.py) and the
course's own driver (day33-exercise-threeway/threeway --grade) loads it,
runs the whole check plan in one process, times it, and writes its
verdict as JSON Lines that only the driver writes. The stages, one
module each:

    listing     the class: plain folders, one submission, a Gradescope
                export, GitHub Classroom clones; names and OUT folders
    compiler    the compile stage (also a script, which the exercise's
                Makefile runs): device code only, the include trace
                judged, the limits; entries reads a module's kernels
    compiling   the compile stage for each submission: its module's
                place, its seed, its timestamps
    machine     the GPU probe, the driver's build, the GPU lock files
    running     one driver process per submission, its watchdogs, the
                result file's events, compute-sanitizer's run
    judge       verdicts, weights and scores
    reports     grades.csv, results.json, summary, Gradescope's CSV
    pipeline    the order the work happens in: setup, compiles, runs and
                verdicts side by side
    merge       shards graded apart, merged into one OUT
    cli         the command line, the setup's steps, the files written at
                the end

Documentation: harness/GRADING.md (instructors), harness/grader/MAINTAINERS.md
(maintainers). Standard library only (python3 >=
3.8); PyYAML is used for Gradescope's metadata when it is installed.
"""
