// The desktop application entry: `rigscope [FILE] [options]`.
#pragma once

#include <string>

namespace app {

/// The help text of the desktop app and the list of commands ("rigscope [options] [file]").
std::string guiHelp();

/// Runs the GUI. Returns the exit status (2 for bad arguments, with one line on stderr).
int runGui(int argc, char** argv);

} // namespace app
