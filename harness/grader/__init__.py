"""grader: grades a class of day 33 three-way submissions.

One rule: no host code from a submission ever runs. Each submission's
threeway.cu is compiled to a device module only (compiler.py) and the
course's own driver (day33-exercise-threeway/threeway --grade) loads it,
runs the whole check plan in one process, times it, and writes its
verdict as JSON Lines that only the driver writes. The stages, one
module each:

    listing     the class: plain folders, one submission, a Gradescope
                export, GitHub Classroom clones; names and OUT folders
    machine     the GPU probe, the driver's build, the GPU lock files
    compiling   compile_submission (compiler.py) for every submission
    running     one driver process per submission, its watchdogs, the
                result file's events, compute-sanitizer's run
    judge       verdicts, weights and scores
    reports     grades.csv, results.json, summary, Gradescope's CSV
    merge       shards graded apart, merged into one OUT
    cli         the command line, and the order the stages run in

Documentation: harness/GRADING.md. Standard library only (python3 >=
3.8); PyYAML is used for Gradescope's metadata when it is installed.
"""
