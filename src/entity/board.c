#include "entity/board.h"

#include "db/db.h"
#include "entity/entity.h"

json_object *entity_board_list(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col));
	json_object_object_add(o, "label", entity_label_basic(c, res, row, col + 2));
	json_put_int(o, "position", db_int(res, row, col + 1));
	return o;
}

json_object *entity_board(ctx *c, long long id, const PGresult *res, int from, int to, int col)
{
	json_object *o = json_object_new_object();
	json_put_int(o, "id", id);
	json_object *lists = json_object_new_array();
	for (int i = from; i < to; i++)
		json_object_array_add(lists, entity_board_list(c, res, i, col));
	json_object_object_add(o, "lists", lists);
	return o;
}
