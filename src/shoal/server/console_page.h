// The web console's page: one HTML document with its CSS and JavaScript inline (no framework, no
// other file to serve), compiled into the binary so a server needs nothing beside it. The page
// reads everything from the JSON API (console_api.h) and refreshes the running views every
// second.
#pragma once

#include <string_view>

namespace shoal::server {

/// The page served at `/`.
std::string_view ConsolePageHtml();

}  // namespace shoal::server
