package io.trailproof.cli;

import java.io.PrintWriter;

/** Where a command writes: its output, and its messages (errors, questions, progress). */
record Streams(PrintWriter out, PrintWriter err) {
}
