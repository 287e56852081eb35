/**
 * @module The memory tool catalogue, in listing order. Handlers that need more than the memory
 * service import it on their first call (`await import`), so an idle server never loads them.
 */
import type { ToolDef } from "../tool.ts";
import { memoryBacklinks, memoryStats, memoryTags, memoryTimeline } from "./browse.ts";
import { memoryCreateBrain, memoryListBrains, memoryReindex } from "./brains.ts";
import { memoryForget, memoryGet, memoryRemember, memoryUpdate } from "./documents.ts";
import { memoryIngestFile, memoryIngestUrl, memoryJob } from "./ingest.ts";
import { memorySearch } from "./search.ts";
import { memoryAsk, memoryRecall } from "./recall.ts";
import { memoryExtract, memoryReflect } from "./sessions.ts";
import { memoryConsolidate } from "./consolidate.ts";
import { memoryDecisions } from "./decisions.ts";
import { memoryMeetingExtract } from "./meeting.ts";
import { memoryOpenLoops } from "./open_loops.ts";
import { memoryPack } from "./pack.ts";

/** Every memory tool. */
export const MEMORY_TOOLS: readonly ToolDef[] = [
  memorySearch,
  memoryRecall,
  memoryAsk,
  memoryPack,
  memoryOpenLoops,
  memoryDecisions,
  memoryMeetingExtract,
  memoryRemember,
  memoryGet,
  memoryUpdate,
  memoryForget,
  memoryIngestFile,
  memoryIngestUrl,
  memoryJob,
  memoryExtract,
  memoryReflect,
  memoryTimeline,
  memoryBacklinks,
  memoryTags,
  memoryStats,
  memoryListBrains,
  memoryCreateBrain,
  memoryConsolidate,
  memoryReindex,
];
