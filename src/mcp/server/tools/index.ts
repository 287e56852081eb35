/** @module The memory tool catalogue, in listing order. */
import type { ToolDef } from "../tool.ts";
import { memoryBacklinks, memoryStats, memoryTags, memoryTimeline } from "./browse.ts";
import { memoryCreateBrain, memoryListBrains, memoryReindex } from "./brains.ts";
import { memoryForget, memoryGet, memoryRemember, memoryUpdate } from "./documents.ts";
import { memoryIngestFile, memoryIngestUrl, memoryJob } from "./ingest.ts";
import { memorySearch } from "./search.ts";
import { memoryAsk, memoryRecall } from "./recall.ts";
import { memoryExtract, memoryReflect } from "./sessions.ts";
import { memoryConsolidate } from "./consolidate.ts";

/** Every memory tool. */
export const MEMORY_TOOLS: readonly ToolDef[] = [
  memorySearch,
  memoryRecall,
  memoryAsk,
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
