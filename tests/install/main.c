/* SPDX-License-Identifier: MIT */
/* Consumer check: uses only the installed public header, creates a world from
 * the default definition and destroys it. Built both through
 * find_package(eddy) and through `pkg-config --cflags --libs eddy`. */
#include <eddy/eddy.h>

#include <stdio.h>

int main(void)
{
    eddy_world_def def = eddy_world_def_default();
    eddy_world *world = NULL;
    eddy_status status = eddy_world_create(&def, &world);
    if (status != EDDY_OK || world == NULL) {
        fprintf(stderr, "eddy_install_check: eddy_world_create failed: %s: %s\n",
                eddy_status_name(status), eddy_last_error_message());
        return 1;
    }
    eddy_world_destroy(world);
    printf("eddy_install_check: eddy %s: created and destroyed a world\n", eddy_version_string());
    return 0;
}
