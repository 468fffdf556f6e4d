import { serve } from '@toolport/plugin-sdk';

// One handler per `agent_tools[].name` of manifest.yaml. Toolport has already checked the
// arguments against its input_schema; a thrown error reaches the agent as an error result.
void serve({
  tools: {
    hello: (args, context) => {
      context.log.info('greeting', { invocation_id: context.invocationId });
      return `Hello, ${String(args.name)}! (task ${context.taskId})`;
    },
  },
});
