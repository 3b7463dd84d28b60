// The playground page: everything interactive lives in the Playground client component.
import { PlaygroundLoader } from '../components/PlaygroundLoader.tsx';

export default function Page() {
  return <PlaygroundLoader />;
}
