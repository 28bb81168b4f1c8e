#include "client.h"
Suite *suite_milestones(void){return suite_create("milestones");}
