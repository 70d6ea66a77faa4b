"""The SQL of communities and the results recorded with them (migration 5); one statement per
write, so each write is atomic on SQLite and PostgreSQL alike."""

from __future__ import annotations

import json
from typing import Any

from gem_flux_mcp.store.rows import CommunityResultRow, CommunityRow, utc_now
from gem_flux_mcp.store.sql_access import SqlAccess

_COLUMNS = "workspace, community_id, community_name, members_json, created_at"
_RESULT_COLUMNS = "id, community_id, kind, media_id, created_at, summary_json"


def _community(r: Any) -> CommunityRow:
    return CommunityRow(str(r["workspace"]), str(r["community_id"]), r["community_name"],
                        list(json.loads(r["members_json"])), str(r["created_at"]))


class CommunityQueries(SqlAccess):
    def insert_community(self, row: CommunityRow) -> bool:
        """False (nothing written) if the id is taken in that workspace, also by a concurrent insert."""
        with self.transaction() as conn:
            self._run(conn, "INSERT INTO workspaces (id, created_at) VALUES (:id, :t) ON CONFLICT (id) DO NOTHING",
                      {"id": row.workspace, "t": utc_now()})
            return self._run(
                conn, f"INSERT INTO communities ({_COLUMNS}) VALUES (:ws, :id, :name, :members, :t) "
                "ON CONFLICT (workspace, community_id) DO NOTHING",
                {"ws": row.workspace, "id": row.community_id, "name": row.community_name,
                 "members": json.dumps(row.members), "t": row.created_at}).rowcount > 0

    def get_community(self, workspace: str, community_id: str) -> CommunityRow | None:
        rows = self._read(f"SELECT {_COLUMNS} FROM communities WHERE workspace = :ws AND community_id = :id",
                          {"ws": workspace, "id": community_id})
        return _community(rows[0]) if rows else None

    def list_communities(self, workspace: str) -> list[CommunityRow]:
        rows = self._read(f"SELECT {_COLUMNS} FROM communities WHERE workspace = :ws "
                          "ORDER BY created_at, community_id", {"ws": workspace})
        return [_community(r) for r in rows]

    def count_community_results(self, workspace: str) -> dict[str, int]:
        """{community id: results recorded with it}; communities without results are left out."""
        rows = self._read("SELECT community_id, COUNT(*) AS n FROM community_results WHERE workspace = :ws "
                          "GROUP BY community_id", {"ws": workspace})
        return {str(r["community_id"]): int(r["n"]) for r in rows}

    def delete_community(self, workspace: str, community_id: str) -> tuple[CommunityRow, int] | None:
        """Delete the community and its recorded results in one transaction (the results first, by
        name, so it holds without the foreign key's cascade too); returns (the deleted row, the
        results deleted), or None when there was no such community (nothing deleted)."""
        where = {"ws": workspace, "id": community_id}
        with self.transaction() as conn:
            gone = self._run(conn, "DELETE FROM community_results WHERE workspace = :ws AND community_id = :id",
                             where).rowcount
            found = self._run(conn, f"DELETE FROM communities WHERE workspace = :ws AND community_id = :id "
                              f"RETURNING {_COLUMNS}", where).mappings().first()
        return (_community(found), gone) if found is not None else None

    def insert_community_result(self, workspace: str, community_id: str, kind: str, media_id: str | None,
                                summary_json: str) -> CommunityResultRow | None:
        """None (nothing written) if the community does not exist (also: deleted meanwhile)."""
        created_at = utc_now()
        with self.transaction() as conn:
            found = self._run(
                conn, "INSERT INTO community_results (workspace, community_id, kind, media_id, created_at, "
                "summary_json) SELECT workspace, community_id, :kind, :media, :t, :summary FROM communities "
                "WHERE workspace = :ws AND community_id = :id RETURNING id",
                {"ws": workspace, "id": community_id, "kind": kind, "media": media_id, "t": created_at,
                 "summary": summary_json}).first()
        if found is None:
            return None
        return CommunityResultRow(int(found[0]), community_id, kind, media_id, created_at, json.loads(summary_json))

    def list_community_results(self, workspace: str, community_id: str, limit: int) -> list[CommunityResultRow]:
        rows = self._read(f"SELECT {_RESULT_COLUMNS} FROM community_results WHERE workspace = :ws AND "
                          "community_id = :id ORDER BY id DESC LIMIT :n", {"ws": workspace, "id": community_id,
                                                                           "n": limit})
        return [CommunityResultRow(int(r["id"]), str(r["community_id"]), str(r["kind"]), r["media_id"],
                                   str(r["created_at"]), json.loads(r["summary_json"])) for r in rows]
