/*
 * cp_html_assets.h - the HTML report's stylesheet and scripts, kept as
 * real files in assets/ and compiled in as NUL-terminated strings by
 * assets/embed.cmake, so the page stays one self-contained file.
 */
#ifndef CP_HTML_ASSETS_H
#define CP_HTML_ASSETS_H

extern const char cp_html_css[];	/* assets/report.css */
extern const char cp_html_head_js[];	/* assets/report-head.js: error
					 * capture, run first */
extern const char cp_html_js[];		/* assets/report.js: sorting,
					 * highlighting, the self-check */

#endif /* CP_HTML_ASSETS_H */
