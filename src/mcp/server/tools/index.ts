/** @module The memory tool catalogue, in listing order. */
import type { ToolDef } from "../tool.ts";
import { memoryBacklinks, memoryStats, memoryTags, memoryTimeline } from "./browse.ts";
import { memoryCreateBrain, memoryListBrains, memoryReindex } from "./brains.ts";
import { memoryForget, memoryGet, memoryRemember, memoryUpdate } from "./documents.ts";
import { memoryIngestFile, memoryIngestUrl, memoryJob } from "./ingest.ts";
import { memorySearch } from "./search.ts";

/** Every memory tool. */
export const MEMORY_TOOLS: readonly ToolDef[] = [
  memorySearch,
  memoryRemember,
  memoryGet,
  memoryUpdate,
  memoryForget,
  memoryIngestFile,
  memoryIngestUrl,
  memoryJob,
  memoryTimeline,
  memoryBacklinks,
  memoryTags,
  memoryStats,
  memoryListBrains,
  memoryCreateBrain,
  memoryReindex,
];
