/** The server half of `lib/mcp`, loaded through `loadServerSide` (`server_side.ts`). */
export { backendAssetsUrl, ValidatorService } from "./validator_service.ts";
export { createValidatorHandler, isMcpMethod } from "./validator_handler.ts";
export { startValidatorServer } from "./serve_validator.ts";
export { TOOL_DEFINITIONS, toolParameterSchemas } from "./tool_definitions.ts";
export { serveValidatorHttp, startMcpHttpServer } from "./serve_validator_http.ts";
export { serveToolsHttp, serveToolsStdio } from "./serve_tools.ts";
