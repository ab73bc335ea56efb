// The desktop application entry: `rigscope [FILE] [options]`.
#pragma once

namespace app {

/// Runs the GUI. Returns the exit status (2 for bad arguments, with one line on stderr).
int runGui(int argc, char** argv);

} // namespace app
